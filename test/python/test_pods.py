# Real pods through the Python client: logs, exec (output, stdin, exit codes) and port-forward over WebSockets.
import socket
import time
import urllib.request

import yaml

import pytest
from kubernetes.stream import portforward, stream

from conftest import busybox_pod, wait_for


@pytest.fixture(scope='module')
def pod(core, namespace):
    body = busybox_pod('shell', ['sh', '-c', 'mkdir -p /www && echo served-by-httpd > /www/index.html && echo started && httpd -p 8080 -h /www && exec sleep 3600'], ports=[8080])
    core.create_namespaced_pod(namespace, body)
    wait_for(lambda: core.read_namespaced_pod('shell', namespace).status.phase == 'Running', 'the pod to run')
    return 'shell'


def test_logs(core, namespace, pod):
    assert wait_for(lambda: core.read_namespaced_pod_log(pod, namespace) == 'started\n', 'the log line')


def test_exec_collects_output(core, namespace, pod):
    out = stream(core.connect_get_namespaced_pod_exec, pod, namespace, command=['sh', '-c', 'for i in 1 2 3; do echo line $i; done'], stderr=False, stdin=False, stdout=True, tty=False)
    assert out.splitlines() == ['line 1', 'line 2', 'line 3']
    out = stream(core.connect_post_namespaced_pod_exec, pod, namespace, command='hostname', stderr=True, stdin=False, stdout=True, tty=False)
    assert out.strip() == pod


def test_exec_interactive_stdin(core, namespace, pod):
    resp = stream(core.connect_post_namespaced_pod_exec, pod, namespace, command='/bin/sh', stderr=True, stdin=True, stdout=True, tty=False, _preload_content=False)
    try:
        resp.write_stdin('echo hello from stdin\n')
        assert resp.readline_stdout(timeout=5) == 'hello from stdin'
        resp.write_stdin('echo to-stderr >&2\n')
        assert resp.readline_stderr(timeout=5) == 'to-stderr'
        resp.write_stdin('exit 0\n')
        resp.run_forever(timeout=5)
        assert resp.returncode == 0
    finally:
        resp.close()


def test_exec_exit_codes(core, namespace, pod):
    # repeated: the exit status and the close frame must reach the client every time, never left unread
    for _ in range(5):
        for command, code in ((['false'], 1), (['sh', '-c', 'exit 3'], 3), (['true'], 0), (['sh', '-c', 'ls /'], 0)):
            resp = stream(core.connect_get_namespaced_pod_exec, pod, namespace, command=command, stderr=True, stdin=False, stdout=True, tty=False, _preload_content=False)
            assert resp.returncode is None
            resp.run_forever(timeout=10)
            assert resp.returncode == code, command


def test_exec_of_a_missing_binary(core, namespace, pod):
    resp = stream(core.connect_get_namespaced_pod_exec, pod, namespace, command=['/no/such/binary'], stderr=True, stdin=False, stdout=True, tty=False, _preload_content=False)
    resp.run_forever(timeout=10)
    # as with containerd under kube: a Failure Status on the error channel, not an exit code
    status = yaml.safe_load(resp.read_channel(3))
    assert status['status'] == 'Failure'
    assert 'error executing command in container' in status['message'] and '/no/such/binary' in status['message']


def test_port_forward_raw_socket(core, namespace, pod):
    pf = portforward(core.connect_get_namespaced_pod_portforward, pod, namespace, ports='8080,9999')
    assert pf.connected
    sock = pf.socket(8080)
    sock.setblocking(True)
    sock.sendall(b'GET /index.html HTTP/1.0\r\nHost: x\r\n\r\n')
    reply = b''
    while True:
        data = sock.recv(4096)
        if not data:
            break
        reply += data
    assert reply.startswith(b'HTTP/1.') and b' 200 ' in reply.split(b'\r\n')[0]
    assert reply.endswith(b'served-by-httpd\n')
    sock.close()
    # nothing listens on 9999: the error channel says so and the socket fails
    dead = pf.socket(9999)
    dead.setblocking(True)
    try:
        dead.sendall(b'x')
        deadline = time.time() + 10
        while pf.error(9999) is None and time.time() < deadline:
            time.sleep(0.1)
    except socket.error:
        pass
    assert pf.error(9999)
    dead.close()
    wait_for(lambda: not pf.connected, 'the port-forward to close once every socket is closed', timeout=10)


def test_port_forward_http_via_urllib(core, namespace, pod):
    # the Python client's documented way to reach a pod's port by name
    def connect(address, *args, **kwargs):
        host = address[0].decode() if isinstance(address[0], bytes) else address[0]
        parts = host.split('.')
        if len(parts) == 3 and parts[2] == 'kubernetes':
            pf = portforward(core.connect_get_namespaced_pod_portforward, parts[0], parts[1], ports=str(address[1]))
            return pf.socket(address[1])
        return original(address, *args, **kwargs)

    original = socket.create_connection
    socket.create_connection = connect
    try:
        body = urllib.request.urlopen('http://%s.%s.kubernetes:8080/' % (pod, namespace), timeout=10).read()
    finally:
        socket.create_connection = original
    assert body == b'served-by-httpd\n'


def test_pod_exit_code_in_status(core, namespace):
    core.create_namespaced_pod(namespace, {**busybox_pod('fails', ['sh', '-c', 'echo bye; exit 7']), 'spec': {**busybox_pod('fails', [])['spec'], 'restartPolicy': 'Never', 'containers': busybox_pod('fails', ['sh', '-c', 'echo bye; exit 7'])['spec']['containers']}})
    pod = wait_for(lambda: (lambda p: p if p.status.phase == 'Failed' else None)(core.read_namespaced_pod('fails', namespace)), 'the pod to fail')
    terminated = pod.status.container_statuses[0].state.terminated
    assert (terminated.exit_code, terminated.reason) == (7, 'Error')
    assert core.read_namespaced_pod_log('fails', namespace) == 'bye\n'
