# Fixtures for the Python client suite: a client from $KUBECONFIG (the k1s admin kubeconfig the e2e runner
# passes), a fresh namespace per module, and the image the node has loaded.
import os
import time
import uuid

import pytest
from kubernetes import client, config

IMAGE = os.environ.get('K1S_TEST_IMAGE', 'k1s.local/busybox:1.35')


@pytest.fixture(scope='session')
def api_client():
    config.load_kube_config()
    return client.ApiClient()


@pytest.fixture(scope='session')
def core(api_client):
    return client.CoreV1Api(api_client)


@pytest.fixture(scope='module')
def namespace(core):
    name = 'py-' + uuid.uuid4().hex[:8]
    core.create_namespace({'metadata': {'name': name, 'labels': {'suite': 'python'}}})
    # the ServiceAccount controller creates `default` asynchronously, as in kube
    deadline = time.time() + 30
    while time.time() < deadline:
        if any(sa.metadata.name == 'default' for sa in core.list_namespaced_service_account(name).items):
            break
        time.sleep(0.2)
    yield name
    core.delete_namespace(name)


def wait_for(predicate, what, timeout=60, interval=0.3):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError('timed out waiting for %s (last: %r)' % (what, last))


def busybox_pod(name, command, ports=None, labels=None):
    # an image without a tag defaults to pull policy Always, as kube does: the registry mirror serves it offline
    container = {'name': 'main', 'image': IMAGE, 'command': command}
    if ':' in IMAGE:
        container['imagePullPolicy'] = 'IfNotPresent'
    if ports:
        container['ports'] = [{'containerPort': p} for p in ports]
    return {
        'apiVersion': 'v1', 'kind': 'Pod',
        'metadata': {'name': name, 'labels': labels or {}},
        'spec': {'terminationGracePeriodSeconds': 1, 'containers': [container]},
    }
