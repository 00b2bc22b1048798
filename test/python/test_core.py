# Core API through the official Python client: CRUD, Status errors as ApiException, pagination, watches.
import json
import threading

import pytest
from kubernetes import client, watch
from kubernetes.client.rest import ApiException


def test_configmap_crud_and_patch(core, namespace):
    cm = core.create_namespaced_config_map(namespace, {'metadata': {'name': 'conf', 'labels': {'app': 'py'}}, 'data': {'a': '1'}})
    assert cm.metadata.resource_version
    assert cm.metadata.uid
    got = core.read_namespaced_config_map('conf', namespace)
    assert got.data == {'a': '1'}
    # a dict body goes as a strategic merge patch: keys merge
    patched = core.patch_namespaced_config_map('conf', namespace, {'data': {'b': '2'}})
    assert patched.data == {'a': '1', 'b': '2'}
    assert int(patched.metadata.resource_version) > int(cm.metadata.resource_version)
    # a list body goes as a JSON patch
    patched = core.patch_namespaced_config_map('conf', namespace, [{'op': 'remove', 'path': '/data/a'}])
    assert patched.data == {'b': '2'}
    patched.data['c'] = '3'
    replaced = core.replace_namespaced_config_map('conf', namespace, patched)
    assert replaced.data == {'b': '2', 'c': '3'}
    status = core.delete_namespaced_config_map('conf', namespace)
    assert status.status == 'Success'
    with pytest.raises(ApiException) as e:
        core.read_namespaced_config_map('conf', namespace)
    assert e.value.status == 404


def test_errors_are_kubernetes_status_objects(core, namespace):
    with pytest.raises(ApiException) as e:
        core.read_namespaced_config_map('missing', namespace)
    body = json.loads(e.value.body)
    assert (e.value.status, body['kind'], body['reason'], body['code']) == (404, 'Status', 'NotFound', 404)
    assert body['message'] == 'configmaps "missing" not found'
    assert body['details'] == {'name': 'missing', 'kind': 'configmaps'}

    core.create_namespaced_config_map(namespace, {'metadata': {'name': 'twice'}})
    with pytest.raises(ApiException) as e:
        core.create_namespaced_config_map(namespace, {'metadata': {'name': 'twice'}})
    body = json.loads(e.value.body)
    assert (e.value.status, body['reason'], body['message']) == (409, 'AlreadyExists', 'configmaps "twice" already exists')

    with pytest.raises(ApiException) as e:
        core.create_namespaced_config_map(namespace, {'metadata': {'name': 'Not_Valid'}})
    body = json.loads(e.value.body)
    assert (e.value.status, body['reason']) == (422, 'Invalid')
    assert body['details']['causes'][0]['field'] == 'metadata.name'

    # a stale resourceVersion is a conflict, and nothing changes
    current = core.read_namespaced_config_map('twice', namespace)
    core.patch_namespaced_config_map('twice', namespace, {'data': {'x': '1'}})
    current.data = {'x': 'stale'}
    with pytest.raises(ApiException) as e:
        core.replace_namespaced_config_map('twice', namespace, current)
    assert e.value.status == 409
    assert 'the object has been modified; please apply your changes to the latest version and try again' in json.loads(e.value.body)['message']
    assert core.read_namespaced_config_map('twice', namespace).data == {'x': '1'}


def test_list_pagination_and_label_selectors(core, namespace):
    for i in range(5):
        core.create_namespaced_config_map(namespace, {'metadata': {'name': 'page-%d' % i, 'labels': {'page': 'yes', 'odd': str(i % 2)}}})
    names, token, pages = [], None, 0
    while True:
        page = core.list_namespaced_config_map(namespace, label_selector='page=yes', limit=2, _continue=token)
        pages += 1
        names += [c.metadata.name for c in page.items]
        token = page.metadata._continue
        if not token:
            break
        # kube counts what remains only for lists without selectors
        assert page.metadata.remaining_item_count is None
    assert pages == 3
    assert names == ['page-%d' % i for i in range(5)]
    everything = core.list_namespaced_config_map(namespace).items
    first = core.list_namespaced_config_map(namespace, limit=2)
    assert [c.metadata.name for c in first.items] == [c.metadata.name for c in everything[:2]]
    assert first.metadata.remaining_item_count == len(everything) - 2
    odd = core.list_namespaced_config_map(namespace, label_selector='page=yes,odd=1')
    assert [c.metadata.name for c in odd.items] == ['page-1', 'page-3']
    by_field = core.list_namespaced_config_map(namespace, field_selector='metadata.name=page-4')
    assert [c.metadata.name for c in by_field.items] == ['page-4']
    core.delete_collection_namespaced_config_map(namespace, label_selector='page=yes', propagation_policy='Background')
    assert core.list_namespaced_config_map(namespace, label_selector='page=yes').items == []


def test_watch_streams_events(core, namespace):
    # the client sends watch=True (Go's strconv.ParseBool accepts it)
    start = core.list_namespaced_config_map(namespace).metadata.resource_version
    events = []

    def run():
        w = watch.Watch()
        for ev in w.stream(core.list_namespaced_config_map, namespace, resource_version=start, timeout_seconds=20):
            events.append((ev['type'], ev['object'].metadata.name, ev['object'].data))
            if ev['type'] == 'DELETED':
                w.stop()

    t = threading.Thread(target=run)
    t.start()
    core.create_namespaced_config_map(namespace, {'metadata': {'name': 'watched'}, 'data': {'v': '1'}})
    core.patch_namespaced_config_map('watched', namespace, {'data': {'v': '2'}})
    core.delete_namespaced_config_map('watched', namespace)
    t.join(30)
    assert not t.is_alive()
    assert events == [('ADDED', 'watched', {'v': '1'}), ('MODIFIED', 'watched', {'v': '2'}), ('DELETED', 'watched', {'v': '2'})]


def test_services_get_a_cluster_ip(core, namespace):
    svc = core.create_namespaced_service(namespace, {
        'metadata': {'name': 'web'},
        'spec': {'selector': {'app': 'web'}, 'ports': [{'port': 80, 'targetPort': 8080}]},
    })
    assert svc.spec.cluster_ip and svc.spec.cluster_ip != 'None'
    assert svc.spec.ports[0].protocol == 'TCP'
    assert svc.spec.type == 'ClusterIP'
    core.delete_namespaced_service('web', namespace)


def test_nodes_and_version(api_client, core):
    nodes = core.list_node().items
    assert nodes
    ready = [c.status for c in nodes[0].status.conditions if c.type == 'Ready']
    assert ready == ['True']
    version = client.VersionApi(api_client).get_code()
    assert (version.major, version.minor) == ('1', '33')
