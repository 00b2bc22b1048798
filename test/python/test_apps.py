# Workloads and extension APIs through the Python client: create_from_yaml, Deployment scale, a Job to completion,
# a CustomResourceDefinition served to CustomObjectsApi and the dynamic client.

from kubernetes import client, utils
from kubernetes.dynamic import DynamicClient

from conftest import busybox_pod, wait_for


def test_deployment_from_yaml_and_scale(api_client, namespace):
    container = busybox_pod('x', ['sleep', '3600'])['spec']['containers'][0]
    deployment = {
        'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'web'},
        'spec': {'replicas': 2, 'selector': {'matchLabels': {'app': 'web'}},
                 'template': {'metadata': {'labels': {'app': 'web'}}, 'spec': {'terminationGracePeriodSeconds': 1, 'containers': [container]}}},
    }
    utils.create_from_dict(api_client, deployment, namespace=namespace)
    apps = client.AppsV1Api(api_client)
    wait_for(lambda: apps.read_namespaced_deployment('web', namespace).status.available_replicas == 2, 'two available replicas', timeout=90)
    scale = apps.patch_namespaced_deployment_scale('web', namespace, {'spec': {'replicas': 1}})
    assert scale.spec.replicas == 1
    wait_for(lambda: apps.read_namespaced_deployment('web', namespace).status.replicas == 1, 'one replica', timeout=60)
    pods = client.CoreV1Api(api_client).list_namespaced_pod(namespace, label_selector='app=web').items
    assert all(p.metadata.owner_references[0].kind == 'ReplicaSet' for p in pods)


def test_job_runs_to_completion(api_client, namespace):
    batch = client.BatchV1Api(api_client)
    container = {**busybox_pod('x', ['sh', '-c', 'echo done'])['spec']['containers'][0]}
    batch.create_namespaced_job(namespace, {
        'metadata': {'name': 'once'},
        'spec': {'backoffLimit': 0, 'template': {'spec': {'restartPolicy': 'Never', 'containers': [container]}}},
    })
    job = wait_for(lambda: (lambda j: j if j.status.succeeded == 1 else None)(batch.read_namespaced_job('once', namespace)), 'the job to succeed', timeout=90)
    assert [c.type for c in job.status.conditions if c.status == 'True'] == ['SuccessCriteriaMet', 'Complete']
    assert job.status.completion_time is not None


def test_custom_resources(api_client, namespace):
    ext = client.ApiextensionsV1Api(api_client)
    group = 'py.k1s.test'
    ext.create_custom_resource_definition({
        'metadata': {'name': 'widgets.' + group},
        'spec': {'group': group, 'scope': 'Namespaced', 'names': {'plural': 'widgets', 'singular': 'widget', 'kind': 'Widget'},
                 'versions': [{'name': 'v1', 'served': True, 'storage': True, 'schema': {'openAPIV3Schema': {
                     'type': 'object', 'properties': {'spec': {'type': 'object', 'properties': {'size': {'type': 'integer', 'default': 1}}}}}}}]},
    })
    try:
        wait_for(lambda: any(c.type == 'Established' and c.status == 'True' for c in (ext.read_custom_resource_definition('widgets.' + group).status.conditions or [])), 'the CRD to be established')
        objects = client.CustomObjectsApi(api_client)
        created = objects.create_namespaced_custom_object(group, 'v1', namespace, 'widgets', {'apiVersion': group + '/v1', 'kind': 'Widget', 'metadata': {'name': 'w1'}, 'spec': {}})
        # the schema's default is applied
        assert created['spec'] == {'size': 1}
        dyn = DynamicClient(api_client)
        widgets = dyn.resources.get(api_version=group + '/v1', kind='Widget')
        dyn.patch(resource=widgets, name='w1', namespace=namespace, body={'spec': {'size': 3}}, content_type='application/merge-patch+json')
        assert [w.spec.size for w in dyn.get(resource=widgets, namespace=namespace).items] == [3]
        objects.delete_namespaced_custom_object(group, 'v1', namespace, 'widgets', 'w1')
    finally:
        ext.delete_custom_resource_definition('widgets.' + group)
