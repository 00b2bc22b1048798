// Request bodies recorded from real kubectl 1.33 (/usr/lib/google-cloud-sdk/bin/kubectl.1.33) against a stub
// API server, with the JSON form of the same object: `--dry-run=client -o json` output of the same command or,
// for commands without --dry-run (token, auth), the JSON body kubectl 1.27 sends for it (1.27-1.31 send JSON).
// debug-copy-pod: `kubectl debug --copy-to` of a Pod served with the rich spec of job-from-cronjob; its expected
// spec is that command's canonical (dry-run) template spec plus the added debug container.
// Files used: file.txt = "line1\nline2\n", bin.dat = 00 01 02 "binary".

export interface KubectlFixture {
  name: string;
  /** kubectl arguments (after --server) */
  args: string[];
  /** request path and query */
  url: string;
  /** the request body, base64 */
  protobuf: string;
  /** the same object as kubectl's JSON encoding prints it (nulls included) */
  json: Record<string, unknown>;
}

export const kubectlFixtures: KubectlFixture[] = [
  {
    name: "configmap-literal",
    args: ["create", "configmap", "cm1", "--from-literal=a=b", "--from-literal=empty=", "-n", "default"],
    url: "/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAoPCgJ2MRIJQ29uZmlnTWFwEi8KGgoDY20xEgAaB2RlZmF1bHQiACoAMgA4AEIAEgYKAWESAWISCQoFZW1wdHkSABoAIgA=",
    json: {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "cm1", "namespace": "default", "creationTimestamp": null}, "data": {"a": "b", "empty": ""}},
  },
  {
    name: "configmap-file",
    args: ["create", "configmap", "cm2", "--from-file=file.txt", "--from-file=bin=bin.dat", "-n", "ns1"],
    url: "/api/v1/namespaces/ns1/configmaps?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAoPCgJ2MRIJQ29uZmlnTWFwEkQKFgoDY20yEgAaA25zMSIAKgAyADgAQgASEAoDYmluEgkAAQJiaW5hcnkSGAoIZmlsZS50eHQSDGxpbmUxCmxpbmUyChoAIgA=",
    json: {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "cm2", "namespace": "ns1", "creationTimestamp": null}, "data": {"bin": "\u0000\u0001\u0002binary", "file.txt": "line1\nline2\n"}},
  },
  {
    name: "configmap-append-hash",
    args: ["create", "configmap", "cm3", "--from-literal=k=v", "--append-hash", "-n", "default"],
    url: "/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAoPCgJ2MRIJQ29uZmlnTWFwEi8KJQoOY20zLWNjZGs5aGQ4OG0SABoHZGVmYXVsdCIAKgAyADgAQgASBgoBaxIBdhoAIgA=",
    json: {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "cm3-ccdk9hd88m", "namespace": "default", "creationTimestamp": null}, "data": {"k": "v"}},
  },
  {
    name: "secret-generic",
    args: ["create", "secret", "generic", "s1", "--from-literal=user=admin", "--from-literal=pw=", "--type=Opaque", "-n", "default"],
    url: "/api/v1/namespaces/default/secrets?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAoMCgJ2MRIGU2VjcmV0EjoKGQoCczESABoHZGVmYXVsdCIAKgAyADgAQgASBgoCcHcSABINCgR1c2VyEgVhZG1pbhoGT3BhcXVlGgAiAA==",
    json: {"kind": "Secret", "apiVersion": "v1", "metadata": {"name": "s1", "namespace": "default", "creationTimestamp": null}, "data": {"pw": "", "user": "YWRtaW4="}, "type": "Opaque"},
  },
  {
    name: "secret-docker-registry",
    args: ["create", "secret", "docker-registry", "reg", "--docker-server=r.io", "--docker-username=u", "--docker-password=p", "-n", "default"],
    url: "/api/v1/namespaces/default/secrets?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAoMCgJ2MRIGU2VjcmV0EpMBChoKA3JlZxIAGgdkZWZhdWx0IgAqADIAOABCABJVChEuZG9ja2VyY29uZmlnanNvbhJAeyJhdXRocyI6eyJyLmlvIjp7InVzZXJuYW1lIjoidSIsInBhc3N3b3JkIjoicCIsImF1dGgiOiJkVHB3In19fRoea3ViZXJuZXRlcy5pby9kb2NrZXJjb25maWdqc29uGgAiAA==",
    json: {"kind": "Secret", "apiVersion": "v1", "metadata": {"name": "reg", "namespace": "default", "creationTimestamp": null}, "data": {".dockerconfigjson": "eyJhdXRocyI6eyJyLmlvIjp7InVzZXJuYW1lIjoidSIsInBhc3N3b3JkIjoicCIsImF1dGgiOiJkVHB3In19fQ=="}, "type": "kubernetes.io/dockerconfigjson"},
  },
  {
    name: "namespace",
    args: ["create", "namespace", "team-a"],
    url: "/api/v1/namespaces?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAoPCgJ2MRIJTmFtZXNwYWNlEh4KFgoGdGVhbS1hEgAaACIAKgAyADgAQgASABoCCgAaACIA",
    json: {"kind": "Namespace", "apiVersion": "v1", "metadata": {"name": "team-a", "creationTimestamp": null}, "spec": {}, "status": {}},
  },
  {
    name: "serviceaccount",
    args: ["create", "serviceaccount", "robot", "-n", "default"],
    url: "/api/v1/namespaces/default/serviceaccounts?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAoUCgJ2MRIOU2VydmljZUFjY291bnQSHgocCgVyb2JvdBIAGgdkZWZhdWx0IgAqADIAOABCABoAIgA=",
    json: {"kind": "ServiceAccount", "apiVersion": "v1", "metadata": {"name": "robot", "namespace": "default", "creationTimestamp": null}},
  },
  {
    name: "deployment",
    args: ["create", "deployment", "web", "--image=nginx:1.25", "--image=redis", "--port=80", "--replicas=3", "-n", "default"],
    url: "/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAoVCgdhcHBzL3YxEgpEZXBsb3ltZW50EukBCiYKA3dlYhIAGgdkZWZhdWx0IgAqADIAOABCAFoKCgNhcHASA3dlYhKwAQgDEgwKCgoDYXBwEgN3ZWIalQEKHAoAEgAaACIAKgAyADgAQgBaCgoDYXBwEgN3ZWISdRIzCgVuZ2lueBIKbmdpbng6MS4yNSoAMgoKABAAGFAiACoAQgBqAHIAgAEAiAEAkAEAogEAEiIKBXJlZGlzEgVyZWRpcyoAQgBqAHIAgAEAiAEAkAEAogEAGgAyAEIASgBSAFgAYABoAIIBAIoBAJoBAMIBACICCgAoADgAGgwIABAAGAAgACgAOAAaACIA",
    json: {"kind": "Deployment", "apiVersion": "apps/v1", "metadata": {"name": "web", "namespace": "default", "creationTimestamp": null, "labels": {"app": "web"}}, "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"creationTimestamp": null, "labels": {"app": "web"}}, "spec": {"containers": [{"name": "nginx", "image": "nginx:1.25", "ports": [{"containerPort": 80}], "resources": {}}, {"name": "redis", "image": "redis", "resources": {}}]}}, "strategy": {}}, "status": {}},
  },
  {
    name: "job",
    args: ["create", "job", "j1", "--image=busybox", "-n", "default", "--", "echo", "hi"],
    url: "/apis/batch/v1/namespaces/default/jobs?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAoPCghiYXRjaC92MRIDSm9iEosBChkKAmoxEgAaB2RlZmF1bHQiACoAMgA4AEIAEmQyYgoQCgASABoAIgAqADIAOABCABJOEisKAmoxEgdidXN5Ym94GgRlY2hvGgJoaSoAQgBqAHIAgAEAiAEAkAEAogEAGgVOZXZlcjIAQgBKAFIAWABgAGgAggEAigEAmgEAwgEAGgggACgAMAA6ABoAIgA=",
    json: {"kind": "Job", "apiVersion": "batch/v1", "metadata": {"name": "j1", "namespace": "default", "creationTimestamp": null}, "spec": {"template": {"metadata": {"creationTimestamp": null}, "spec": {"containers": [{"name": "j1", "image": "busybox", "command": ["echo", "hi"], "resources": {}}], "restartPolicy": "Never"}}}, "status": {}},
  },
  {
    name: "cronjob",
    args: ["create", "cronjob", "cj1", "--image=busybox", "--schedule=*/5 * * * *", "--restart=OnFailure", "-n", "default", "--", "date"],
    url: "/apis/batch/v1/namespaces/default/cronjobs?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAoTCghiYXRjaC92MRIHQ3JvbkpvYhKuAQoaCgNjajESABoHZGVmYXVsdCIAKgAyADgAQgASjQEKCyovNSAqICogKiAqGgAqfAoTCgNjajESABoAIgAqADIAOABCABJlMmMKEAoAEgAaACIAKgAyADgAQgASTxIoCgNjajESB2J1c3lib3gaBGRhdGUqAEIAagByAIABAIgBAJABAKIBABoJT25GYWlsdXJlMgBCAEoAUgBYAGAAaACCAQCKAQCaAQDCAQAaABoAIgA=",
    json: {"kind": "CronJob", "apiVersion": "batch/v1", "metadata": {"name": "cj1", "namespace": "default", "creationTimestamp": null}, "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"metadata": {"name": "cj1", "creationTimestamp": null}, "spec": {"template": {"metadata": {"creationTimestamp": null}, "spec": {"containers": [{"name": "cj1", "image": "busybox", "command": ["date"], "resources": {}}], "restartPolicy": "OnFailure"}}}}}, "status": {}},
  },
  {
    name: "role",
    args: ["create", "role", "r1", "--verb=get,list", "--resource=pods,deployments.apps", "--resource-name=a", "-n", "default"],
    url: "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAokChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgRSb2xlElYKGQoCcjESABoHZGVmYXVsdCIAKgAyADgAQgASFgoDZ2V0CgRsaXN0EgAaBHBvZHMiAWESIQoDZ2V0CgRsaXN0EgRhcHBzGgtkZXBsb3ltZW50cyIBYRoAIgA=",
    json: {"kind": "Role", "apiVersion": "rbac.authorization.k8s.io/v1", "metadata": {"name": "r1", "namespace": "default", "creationTimestamp": null}, "rules": [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]}, {"verbs": ["get", "list"], "apiGroups": ["apps"], "resources": ["deployments"], "resourceNames": ["a"]}]},
  },
  {
    name: "rolebinding",
    args: ["create", "rolebinding", "rb1", "--role=r1", "--user=alice", "--serviceaccount=default:robot", "--group=devs", "-n", "default"],
    url: "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAorChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgtSb2xlQmluZGluZxK/AQoaCgNyYjESABoHZGVmYXVsdCIAKgAyADgAQgASKgoEVXNlchIZcmJhYy5hdXRob3JpemF0aW9uLms4cy5pbxoFYWxpY2UiABIqCgVHcm91cBIZcmJhYy5hdXRob3JpemF0aW9uLms4cy5pbxoEZGV2cyIAEiIKDlNlcnZpY2VBY2NvdW50EgAaBXJvYm90IgdkZWZhdWx0GiUKGXJiYWMuYXV0aG9yaXphdGlvbi5rOHMuaW8SBFJvbGUaAnIxGgAiAA==",
    json: {"kind": "RoleBinding", "apiVersion": "rbac.authorization.k8s.io/v1", "metadata": {"name": "rb1", "namespace": "default", "creationTimestamp": null}, "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}, {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "devs"}, {"kind": "ServiceAccount", "name": "robot", "namespace": "default"}], "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r1"}},
  },
  {
    name: "clusterrole",
    args: ["create", "clusterrole", "cr1", "--verb=get", "--resource=pods", "--resource-name=p1", "--non-resource-url=/healthz"],
    url: "/apis/rbac.authorization.k8s.io/v1/clusterroles?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAorChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgtDbHVzdGVyUm9sZRI5ChMKA2NyMRIAGgAiACoAMgA4AEIAEhEKA2dldBIAGgRwb2RzIgJwMRIPCgNnZXQqCC9oZWFsdGh6GgAiAA==",
    json: {"kind": "ClusterRole", "apiVersion": "rbac.authorization.k8s.io/v1", "metadata": {"name": "cr1", "creationTimestamp": null}, "rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["p1"]}, {"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]},
  },
  {
    name: "clusterrole-aggregate",
    args: ["create", "clusterrole", "cr2", "--aggregation-rule=rbac.example.com/aggregate=true"],
    url: "/apis/rbac.authorization.k8s.io/v1/clusterroles?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAorChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgtDbHVzdGVyUm9sZRI9ChMKA2NyMhIAGgAiACoAMgA4AEIAGiYKJAoiChpyYmFjLmV4YW1wbGUuY29tL2FnZ3JlZ2F0ZRIEdHJ1ZRoAIgA=",
    json: {"kind": "ClusterRole", "apiVersion": "rbac.authorization.k8s.io/v1", "metadata": {"name": "cr2", "creationTimestamp": null}, "rules": null, "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"rbac.example.com/aggregate": "true"}}]}},
  },
  {
    name: "clusterrolebinding",
    args: ["create", "clusterrolebinding", "crb1", "--clusterrole=cr1", "--user=bob"],
    url: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAoyChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEhJDbHVzdGVyUm9sZUJpbmRpbmcSbwoUCgRjcmIxEgAaACIAKgAyADgAQgASKAoEVXNlchIZcmJhYy5hdXRob3JpemF0aW9uLms4cy5pbxoDYm9iIgAaLQoZcmJhYy5hdXRob3JpemF0aW9uLms4cy5pbxILQ2x1c3RlclJvbGUaA2NyMRoAIgA=",
    json: {"kind": "ClusterRoleBinding", "apiVersion": "rbac.authorization.k8s.io/v1", "metadata": {"name": "crb1", "creationTimestamp": null}, "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "bob"}], "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cr1"}},
  },
  {
    name: "pdb",
    args: ["create", "poddisruptionbudget", "pdb1", "--selector=app=web", "--min-available=50%", "-n", "default"],
    url: "/apis/policy/v1/namespaces/default/poddisruptionbudgets?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAogCglwb2xpY3kvdjESE1BvZERpc3J1cHRpb25CdWRnZXQSRAobCgRwZGIxEgAaB2RlZmF1bHQiACoAMgA4AEIAEhkKCQgBEAAaAzUwJRIMCgoKA2FwcBIDd2ViGgoIABgAIAAoADAAGgAiAA==",
    json: {"kind": "PodDisruptionBudget", "apiVersion": "policy/v1", "metadata": {"name": "pdb1", "namespace": "default", "creationTimestamp": null}, "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "web"}}}, "status": {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}},
  },
  {
    name: "pdb-int",
    args: ["create", "poddisruptionbudget", "pdb2", "--selector=app=web", "--max-unavailable=1", "-n", "default"],
    url: "/apis/policy/v1/namespaces/default/poddisruptionbudgets?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAogCglwb2xpY3kvdjESE1BvZERpc3J1cHRpb25CdWRnZXQSQQobCgRwZGIyEgAaB2RlZmF1bHQiACoAMgA4AEIAEhYSDAoKCgNhcHASA3dlYhoGCAAQARoAGgoIABgAIAAoADAAGgAiAA==",
    json: {"kind": "PodDisruptionBudget", "apiVersion": "policy/v1", "metadata": {"name": "pdb2", "namespace": "default", "creationTimestamp": null}, "spec": {"selector": {"matchLabels": {"app": "web"}}, "maxUnavailable": 1}, "status": {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}},
  },
  {
    name: "ingress",
    args: ["create", "ingress", "ing1", "--rule=foo.com/bar*=svc1:8080,tls=my-cert", "--class=nginx", "-n", "default"],
    url: "/apis/networking.k8s.io/v1/namespaces/default/ingresses?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAofChRuZXR3b3JraW5nLms4cy5pby92MRIHSW5ncmVzcxJuChsKBGluZzESABoHZGVmYXVsdCIAKgAyADgAQgASSxISCgdmb28uY29tEgdteS1jZXJ0Gi4KB2Zvby5jb20SIwohCh8KBC9iYXISDyINCgRzdmMxEgUKABCQPxoGUHJlZml4IgVuZ2lueBoCCgAaACIA",
    json: {"kind": "Ingress", "apiVersion": "networking.k8s.io/v1", "metadata": {"name": "ing1", "namespace": "default", "creationTimestamp": null}, "spec": {"ingressClassName": "nginx", "tls": [{"hosts": ["foo.com"], "secretName": "my-cert"}], "rules": [{"host": "foo.com", "http": {"paths": [{"path": "/bar", "pathType": "Prefix", "backend": {"service": {"name": "svc1", "port": {"number": 8080}}}}]}}]}, "status": {"loadBalancer": {}}},
  },
  {
    name: "quota",
    args: ["create", "quota", "q1", "--hard=cpu=1,memory=1Gi,pods=10", "--scopes=BestEffort", "-n", "default"],
    url: "/api/v1/namespaces/default/resourcequotas?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAoTCgJ2MRINUmVzb3VyY2VRdW90YRJWChkKAnExEgAaB2RlZmF1bHQiACoAMgA4AEIAEjcKCgoDY3B1EgMKATEKDwoGbWVtb3J5EgUKAzFHaQoMCgRwb2RzEgQKAjEwEgpCZXN0RWZmb3J0GgAaACIA",
    json: {"kind": "ResourceQuota", "apiVersion": "v1", "metadata": {"name": "q1", "namespace": "default", "creationTimestamp": null}, "spec": {"hard": {"cpu": "1", "memory": "1Gi", "pods": "10"}, "scopes": ["BestEffort"]}, "status": {}},
  },
  {
    name: "service-clusterip",
    args: ["create", "service", "clusterip", "svc1", "--tcp=5678:8080", "-n", "default"],
    url: "/api/v1/namespaces/default/services?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAoNCgJ2MRIHU2VydmljZRJ2CigKBHN2YzESABoHZGVmYXVsdCIAKgAyADgAQgBaCwoDYXBwEgRzdmMxEkYKHgoJNTY3OC04MDgwEgNUQ1AYriwiBwgAEJA/GgAoABILCgNhcHASBHN2YzEaACIJQ2x1c3RlcklQOgBCAFIAWgBgAGgAGgIKABoAIgA=",
    json: {"kind": "Service", "apiVersion": "v1", "metadata": {"name": "svc1", "namespace": "default", "creationTimestamp": null, "labels": {"app": "svc1"}}, "spec": {"ports": [{"name": "5678-8080", "protocol": "TCP", "port": 5678, "targetPort": 8080}], "selector": {"app": "svc1"}, "type": "ClusterIP"}, "status": {"loadBalancer": {}}},
  },
  {
    name: "service-nodeport",
    args: ["create", "service", "nodeport", "svc2", "--tcp=80:8080", "--node-port=30080", "-n", "default"],
    url: "/api/v1/namespaces/default/services?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAoNCgJ2MRIHU2VydmljZRJ0CigKBHN2YzISABoHZGVmYXVsdCIAKgAyADgAQgBaCwoDYXBwEgRzdmMyEkQKHQoHODAtODA4MBIDVENQGFAiBwgAEJA/GgAogOsBEgsKA2FwcBIEc3ZjMhoAIghOb2RlUG9ydDoAQgBSAFoAYABoABoCCgAaACIA",
    json: {"kind": "Service", "apiVersion": "v1", "metadata": {"name": "svc2", "namespace": "default", "creationTimestamp": null, "labels": {"app": "svc2"}}, "spec": {"ports": [{"name": "80-8080", "protocol": "TCP", "port": 80, "targetPort": 8080, "nodePort": 30080}], "selector": {"app": "svc2"}, "type": "NodePort"}, "status": {"loadBalancer": {}}},
  },
  {
    name: "priorityclass",
    args: ["create", "priorityclass", "high", "--value=1000", "--global-default=false", "--description=hi", "--preemption-policy=Never"],
    url: "/apis/scheduling.k8s.io/v1/priorityclasses?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAolChRzY2hlZHVsaW5nLms4cy5pby92MRINUHJpb3JpdHlDbGFzcxImChQKBGhpZ2gSABoAIgAqADIAOABCABDoBxgAIgJoaSoFTmV2ZXIaACIA",
    json: {"kind": "PriorityClass", "apiVersion": "scheduling.k8s.io/v1", "metadata": {"name": "high", "creationTimestamp": null}, "value": 1000, "description": "hi", "preemptionPolicy": "Never"},
  },
  {
    name: "token",
    args: ["create", "token", "robot", "--duration=1h", "--audience=api", "-n", "default"],
    url: "/api/v1/namespaces/default/serviceaccounts/robot/token",
    protobuf: "azhzAAooChhhdXRoZW50aWNhdGlvbi5rOHMuaW8vdjESDFRva2VuUmVxdWVzdBIiChAKABIAGgAiACoAMgA4AEIAEggKA2FwaSCQHBoECgASABoAIgA=",
    json: {"kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1", "metadata": {"creationTimestamp": null}, "spec": {"audiences": ["api"], "expirationSeconds": 3600, "boundObjectRef": null}, "status": {"token": "", "expirationTimestamp": null}},
  },
  {
    name: "auth-can-i",
    args: ["auth", "can-i", "create", "pods", "-n", "default"],
    url: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
    protobuf: "azhzAAoyChdhdXRob3JpemF0aW9uLms4cy5pby92MRIXU2VsZlN1YmplY3RBY2Nlc3NSZXZpZXcSPwoQCgASABoAIgAqADIAOABCABIhCh8KB2RlZmF1bHQSBmNyZWF0ZRoAIgAqBHBvZHMyADoAGggIABIAGgAgABoAIgA=",
    json: {"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1", "metadata": {"creationTimestamp": null}, "spec": {"resourceAttributes": {"namespace": "default", "verb": "create", "resource": "pods"}}, "status": {"allowed": false}},
  },
  {
    name: "auth-can-i-subresource",
    args: ["auth", "can-i", "get", "pods", "--subresource=log", "-n", "kube-system"],
    url: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
    protobuf: "azhzAAoyChdhdXRob3JpemF0aW9uLms4cy5pby92MRIXU2VsZlN1YmplY3RBY2Nlc3NSZXZpZXcSQwoQCgASABoAIgAqADIAOABCABIlCiMKC2t1YmUtc3lzdGVtEgNnZXQaACIAKgRwb2RzMgNsb2c6ABoICAASABoAIAAaACIA",
    json: {"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1", "metadata": {"creationTimestamp": null}, "spec": {"resourceAttributes": {"namespace": "kube-system", "verb": "get", "resource": "pods", "subresource": "log"}}, "status": {"allowed": false}},
  },
  {
    name: "auth-can-i-nonresource",
    args: ["auth", "can-i", "get", "/healthz"],
    url: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
    protobuf: "azhzAAoyChdhdXRob3JpemF0aW9uLms4cy5pby92MRIXU2VsZlN1YmplY3RBY2Nlc3NSZXZpZXcSLwoQCgASABoAIgAqADIAOABCABIREg8KCC9oZWFsdGh6EgNnZXQaCAgAEgAaACAAGgAiAA==",
    json: {"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1", "metadata": {"creationTimestamp": null}, "spec": {"nonResourceAttributes": {"path": "/healthz", "verb": "get"}}, "status": {"allowed": false}},
  },
  {
    name: "auth-can-i-list",
    args: ["auth", "can-i", "--list", "-n", "default"],
    url: "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
    protobuf: "azhzAAoxChdhdXRob3JpemF0aW9uLms4cy5pby92MRIWU2VsZlN1YmplY3RSdWxlc1JldmlldxIjChAKABIAGgAiACoAMgA4AEIAEgkKB2RlZmF1bHQaBBgAIgAaACIA",
    json: {"kind": "SelfSubjectRulesReview", "apiVersion": "authorization.k8s.io/v1", "metadata": {"creationTimestamp": null}, "spec": {"namespace": "default"}, "status": {"resourceRules": null, "nonResourceRules": null, "incomplete": false}},
  },
  {
    name: "auth-whoami",
    args: ["auth", "whoami"],
    url: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    protobuf: "azhzAAotChhhdXRoZW50aWNhdGlvbi5rOHMuaW8vdjESEVNlbGZTdWJqZWN0UmV2aWV3EhoKEAoAEgAaACIAKgAyADgAQgASBgoECgASABoAIgA=",
    json: {"kind": "SelfSubjectReview", "apiVersion": "authentication.k8s.io/v1", "metadata": {"creationTimestamp": null}, "status": {"userInfo": {}}},
  },
  {
    name: "job-from-cronjob",
    args: ["create", "job", "manual", "--from=cronjob/rich", "-n", "default"],
    url: "/apis/batch/v1/namespaces/default/jobs?fieldManager=kubectl-create&fieldValidation=Strict",
    protobuf: "azhzAAoPCghiYXRjaC92MRIDSm9iEpAUCqIBCgZtYW51YWwSABoHZGVmYXVsdCIAKgAyADgAQgBaCwoDam9iEgRyaWNoYgYKAWESAWJiKwohY3JvbmpvYi5rdWJlcm5ldGVzLmlvL2luc3RhbnRpYXRlEgZtYW51YWxqQQoHQ3JvbkpvYhoEcmljaCIkNWY3ZDBjM2UtMTExMS0yMjIyLTMzMzMtNDQ0NDU1NTU2NjY2KghiYXRjaC92MTABEt4SCAIQBBhkKAAy6REKPQoAEgAaACIAKgAyADgAQgBaCwoDYXBwEgRyaWNoWggKBHRpZXISAGIJCgVlbXB0eRIAYgkKBG5vdGUSAXgSpxEKHQoHc2NyYXRjaBISEhAKBk1lbW9yeRIGCgQ2NE1pCg0KBWVtcHR5EgQSAgoACiwKA2NmZxIlmgEiCgwKCmFwcC1jb25maWcSDQoBYRIFYS50eHQYgAIYpAMgAAoSCgNzZWMSCzIJCgVjcmVkcyABCh8KBGhvc3QSFwoVCggvdmFyL2xvZxIJRGlyZWN0b3J5ChMKBWNsYWltEgpSCAoEZGF0YRABCosBCgRwcm9qEoIB0gF/ChMiEQoFdmF1bHQQkBwaBXRva2VuCkQSQgofCgZsYWJlbHMSFQoCdjESD21ldGFkYXRhLmxhYmVscwofCgNjcHUaGAoEbWFpbhIKbGltaXRzLmNwdRoECgIxbQoNGgsKBwoFZXh0cmEgAQoQCg4KBAoCczISBgoBaxIBcBCkAgpbCgNlcGgSVOoBUQpPChgKABIAGgAiACoAMgA4AEIAWgYKAXgSAXkSMwoNUmVhZFdyaXRlT25jZRISEhAKB3N0b3JhZ2USBQoDMUdpGgAqADIKRmlsZXN5c3RlbQoyCgNjc2kSK+IBKAoPY3NpLmV4YW1wbGUuY29tEAAiCQoEc2l6ZRIBMSoICgZjc2lzZWMKHwoDbmZzEhg6FgoIMTAuMC4wLjESCC9leHBvcnRzGAAKJgoDaW1nEh/yARwKDGJ1c3lib3g6MS4zNhIMSWZOb3RQcmVzZW50EswGCgRtYWluEgpuZ2lueDoxLjI1GgcvYmluL3NoGgItYyIKZXhlYyBuZ2lueCIAKgQvc3J2MhEKBGh0dHAQABhQIgNUQ1AqADIVCgAQ6SkYNSIDVURQKgcwLjAuMC4wOgoKBVBMQUlOEgF2OgkKBUVNUFRZEgA6IgoHRlJPTV9DTRIAGhUaEwoMCgphcHAtY29uZmlnEgFrGAE6JgoLRlJPTV9TRUNSRVQSABoVIhMKBwoFY3JlZHMSCHBhc3N3b3JkOh4KBlBPRF9JUBIAGhIKEAoAEgxzdGF0dXMucG9kSVA6IwoDTUVNEgAaGhIYCgASDWxpbWl0cy5tZW1vcnkaBQoDMU1pQoABCg0KA2NwdRIGCgQ1MDBtChEKBm1lbW9yeRIHCgUxMjhNaQoVCg5udmlkaWEuY29tL2dwdRIDCgExEg0KA2NwdRIGCgQyNTBtEhkKEWVwaGVtZXJhbC1zdG9yYWdlEgQKAjFHEhAKBm1lbW9yeRIGCgQ2NE1pGgkKA2dwdRICcjFKGgoDY2ZnEAEaCC9ldGMvY2ZnIgVhLnR4dDIASi4KBGhvc3QQABoFL2hvc3QiACoPSG9zdFRvQ29udGFpbmVyMgA6CERpc2FibGVkSh4KB3NjcmF0Y2gQABoEL3RtcCIAMgkkKFBPRF9JUClSNwopEicKCC9oZWFsdGh6EgoIARAAGgRodHRwGgAiBEhUVFAqBwoDWC1BEgAQABgBIAooATADOABaGAoMGgoKBggAEFAaABIAEAUYACAAKAAwAGIiChEKDwoFdG91Y2gKBi9yZWFkeRIEIgIIBRoHU0lHVEVSTWoUL2Rldi90ZXJtaW5hdGlvbi1sb2dyBkFsd2F5c3pgChAKCU5FVF9BRE1JThIDQUxMEAAaDQoAEgAaACIFczA6YzEgACgAMAE4AEDoB0oHRGVmYXVsdFIFGgF1IABaEAoOUnVudGltZURlZmF1bHRiDgoJTG9jYWxob3N0EgFwgAEBiAEAkAEBmgEYCgRDRkdfEhAKDAoKYXBwLWNvbmZpZxAAmgENCgAaCQoHCgVjcmVkc6IBFUZhbGxiYWNrVG9Mb2dzT25FcnJvcqoBEgoFY2xhaW0SCS9kZXYveHZkYRoJT25GYWlsdXJlIAAo2AQyF0NsdXN0ZXJGaXJzdFdpdGhIb3N0TmV0OgsKBGRpc2sSA3NzZDoJCgVlbXB0eRIAQgVyb2JvdEoAUgBYAWAAaAFyYxDoBxgBILgXIAAo0A86GgoSbmV0LmNvcmUuc29tYXhjb25uEgQxMDI0Sg5PblJvb3RNaXNtYXRjaFIWCglMb2NhbGhvc3QSCXByb2YuanNvbmIFTWVyZ2VqCVJlY3Vyc2l2ZXoFCgNyZWd6AgoAggEBaIoBA3N1YpIBrwEKRQowCi4KEAoEem9uZRICSW4aAWEaAWISGgoNbWV0YWRhdGEubmFtZRIFTm90SW4aAm4xEhEIARINCgsKAWsSBkV4aXN0cxIZChcKDxINCgNhcHASAkluGgJkYhoEem9uZRpLEkkIZBJFCg0KCwoDYXBwEgRyaWNoEgdkZWZhdWx0GhZrdWJlcm5ldGVzLmlvL2hvc3RuYW1lIgAqEXBvZC10ZW1wbGF0ZS1oYXNomgERZGVmYXVsdC1zY2hlZHVsZXKiAWoKB3NpZGVjYXISBWVudm95KgAyEAoFYWRtaW4QABitTSIAKgBCAGoAcgCAAQCIAQCQAQCiAQCyARMKByIFCK1NEgAQABgAIAEoADAeugESCgNjcHUSC05vdFJlcXVpcmVkwgEGQWx3YXlzqAEAsgEaCgFrEgVFcXVhbBoBdiIJTm9FeGVjdXRlKACyAQ4KABIGRXhpc3RzGgAiALoBIQoJMTI3LjAuMC4xEglmb28ubG9jYWwSCWJhci5sb2NhbMIBBGhpZ2jIAQDSASYKBzEuMS4xLjESBm5zLnN2YxoKCgVuZG90cxIBMhoHCgVlZG5zMNgBAOIBEwoRZXhhbXBsZS5jb20vcmVhZHnqAQZndmlzb3LwAQD6AQVOZXZlcoICDQoDY3B1EgYKBDEwMG2KAjwIARIEem9uZRoNRG9Ob3RTY2hlZHVsZSINCgsKA2FwcBIEcmljaCgCMgVIb25vcjoGSWdub3JlQgNyZXaYAgGiAgcKBWxpbnV4qAIAsgISChBleGFtcGxlLmNvbS9nYXRlugIPCgNncHUiCGdwdS10bXBswgIMCgoKA2NwdRIDCgEyOABAPEoHSW5kZXhlZFAAWkEKGwoHRmFpbEpvYhIQCgRtYWluEgJJbhgBGAIYKgoiCgZJZ25vcmUaGAoQRGlzcnVwdGlvblRhcmdldBIEVHJ1ZWABaAJyBkZhaWxlZIIBCQoHCgMwLTIQARoIIAAoADAAOgAaACIA",
    json: {"kind": "Job", "apiVersion": "batch/v1", "metadata": {"name": "manual", "namespace": "default", "creationTimestamp": null, "labels": {"job": "rich"}, "annotations": {"a": "b", "cronjob.kubernetes.io/instantiate": "manual"}, "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob", "name": "rich", "uid": "5f7d0c3e-1111-2222-3333-444455556666", "controller": true}]}, "spec": {"parallelism": 2, "completions": 4, "activeDeadlineSeconds": 100, "podFailurePolicy": {"rules": [{"action": "FailJob", "onExitCodes": {"containerName": "main", "operator": "In", "values": [1, 2, 42]}}, {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}]}, "successPolicy": {"rules": [{"succeededIndexes": "0-2", "succeededCount": 1}]}, "backoffLimit": 0, "backoffLimitPerIndex": 1, "maxFailedIndexes": 2, "manualSelector": false, "template": {"metadata": {"creationTimestamp": null, "labels": {"app": "rich", "tier": ""}, "annotations": {"empty": "", "note": "x"}}, "spec": {"volumes": [{"name": "scratch", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}}, {"name": "empty", "emptyDir": {}}, {"name": "cfg", "configMap": {"name": "app-config", "items": [{"key": "a", "path": "a.txt", "mode": 256}], "defaultMode": 420, "optional": false}}, {"name": "sec", "secret": {"secretName": "creds", "optional": true}}, {"name": "host", "hostPath": {"path": "/var/log", "type": "Directory"}}, {"name": "claim", "persistentVolumeClaim": {"claimName": "data", "readOnly": true}}, {"name": "proj", "projected": {"sources": [{"serviceAccountToken": {"audience": "vault", "expirationSeconds": 3600, "path": "token"}}, {"downwardAPI": {"items": [{"path": "labels", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels"}}, {"path": "cpu", "resourceFieldRef": {"containerName": "main", "resource": "limits.cpu", "divisor": "1m"}}]}}, {"configMap": {"name": "extra", "optional": true}}, {"secret": {"name": "s2", "items": [{"key": "k", "path": "p"}]}}], "defaultMode": 292}}, {"name": "eph", "ephemeral": {"volumeClaimTemplate": {"metadata": {"creationTimestamp": null, "labels": {"x": "y"}}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, "storageClassName": "", "volumeMode": "Filesystem"}}}}, {"name": "csi", "csi": {"driver": "csi.example.com", "readOnly": false, "volumeAttributes": {"size": "1"}, "nodePublishSecretRef": {"name": "csisec"}}}, {"name": "nfs", "nfs": {"server": "10.0.0.1", "path": "/exports"}}, {"name": "img", "image": {"reference": "busybox:1.36", "pullPolicy": "IfNotPresent"}}], "initContainers": [{"name": "sidecar", "image": "envoy", "ports": [{"name": "admin", "containerPort": 9901}], "resources": {}, "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}], "restartPolicy": "Always", "startupProbe": {"grpc": {"port": 9901, "service": ""}, "periodSeconds": 1, "failureThreshold": 30}}], "containers": [{"name": "main", "image": "nginx:1.25", "command": ["/bin/sh", "-c"], "args": ["exec nginx", ""], "workingDir": "/srv", "ports": [{"name": "http", "containerPort": 80, "protocol": "TCP"}, {"hostPort": 5353, "containerPort": 53, "protocol": "UDP", "hostIP": "0.0.0.0"}], "envFrom": [{"prefix": "CFG_", "configMapRef": {"name": "app-config", "optional": false}}, {"secretRef": {"name": "creds"}}], "env": [{"name": "PLAIN", "value": "v"}, {"name": "EMPTY"}, {"name": "FROM_CM", "valueFrom": {"configMapKeyRef": {"name": "app-config", "key": "k", "optional": true}}}, {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "password"}}}, {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}, {"name": "MEM", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}}}], "resources": {"limits": {"cpu": "500m", "memory": "128Mi", "nvidia.com/gpu": "1"}, "requests": {"cpu": "250m", "ephemeral-storage": "1G", "memory": "64Mi"}, "claims": [{"name": "gpu", "request": "r1"}]}, "volumeMounts": [{"name": "cfg", "readOnly": true, "mountPath": "/etc/cfg", "subPath": "a.txt"}, {"name": "host", "recursiveReadOnly": "Disabled", "mountPath": "/host", "mountPropagation": "HostToContainer"}, {"name": "scratch", "mountPath": "/tmp", "subPathExpr": "$(POD_IP)"}], "volumeDevices": [{"name": "claim", "devicePath": "/dev/xvda"}], "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP", "httpHeaders": [{"name": "X-A", "value": ""}]}, "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3, "terminationGracePeriodSeconds": 0}, "readinessProbe": {"tcpSocket": {"port": 80}, "initialDelaySeconds": 5}, "lifecycle": {"postStart": {"exec": {"command": ["touch", "/ready"]}}, "preStop": {"sleep": {"seconds": 5}}, "stopSignal": "SIGTERM"}, "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "FallbackToLogsOnError", "imagePullPolicy": "Always", "securityContext": {"capabilities": {"add": ["NET_ADMIN"], "drop": ["ALL"]}, "privileged": false, "seLinuxOptions": {"level": "s0:c1"}, "windowsOptions": {"runAsUserName": "u", "hostProcess": false}, "runAsUser": 0, "runAsGroup": 1000, "runAsNonRoot": false, "readOnlyRootFilesystem": true, "allowPrivilegeEscalation": false, "procMount": "Default", "seccompProfile": {"type": "RuntimeDefault"}, "appArmorProfile": {"type": "Localhost", "localhostProfile": "p"}}, "stdin": true, "tty": true}], "restartPolicy": "OnFailure", "terminationGracePeriodSeconds": 0, "activeDeadlineSeconds": 600, "dnsPolicy": "ClusterFirstWithHostNet", "nodeSelector": {"disk": "ssd", "empty": ""}, "serviceAccountName": "robot", "automountServiceAccountToken": false, "hostNetwork": true, "hostIPC": true, "shareProcessNamespace": false, "securityContext": {"runAsUser": 1000, "runAsNonRoot": true, "supplementalGroups": [3000, 0], "supplementalGroupsPolicy": "Merge", "fsGroup": 2000, "sysctls": [{"name": "net.core.somaxconn", "value": "1024"}], "fsGroupChangePolicy": "OnRootMismatch", "seccompProfile": {"type": "Localhost", "localhostProfile": "prof.json"}, "seLinuxChangePolicy": "Recursive"}, "imagePullSecrets": [{"name": "reg"}, {}], "hostname": "h", "subdomain": "sub", "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}], "matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n1"]}]}]}, "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {"matchExpressions": [{"key": "k", "operator": "Exists"}]}}]}, "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["db"]}]}, "topologyKey": "zone"}]}, "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "rich"}}, "namespaces": ["default"], "topologyKey": "kubernetes.io/hostname", "namespaceSelector": {}, "matchLabelKeys": ["pod-template-hash"]}}]}}, "schedulerName": "default-scheduler", "tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute", "tolerationSeconds": 0}, {"operator": "Exists"}], "hostAliases": [{"ip": "127.0.0.1", "hostnames": ["foo.local", "bar.local"]}], "priorityClassName": "high", "priority": 0, "dnsConfig": {"nameservers": ["1.1.1.1"], "searches": ["ns.svc"], "options": [{"name": "ndots", "value": "2"}, {"name": "edns0"}]}, "readinessGates": [{"conditionType": "example.com/ready"}], "runtimeClassName": "gvisor", "enableServiceLinks": false, "preemptionPolicy": "Never", "overhead": {"cpu": "100m"}, "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "rich"}}, "minDomains": 2, "nodeAffinityPolicy": "Honor", "nodeTaintsPolicy": "Ignore", "matchLabelKeys": ["rev"]}], "setHostnameAsFQDN": true, "os": {"name": "linux"}, "hostUsers": false, "schedulingGates": [{"name": "example.com/gate"}], "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-tmpl"}], "resources": {"limits": {"cpu": "2"}}}}, "ttlSecondsAfterFinished": 60, "completionMode": "Indexed", "suspend": false, "podReplacementPolicy": "Failed"}, "status": {}},
  },
  {
    name: "token-bound",
    args: ["create", "token", "robot", "--bound-object-kind=Pod", "--bound-object-name=p1", "--bound-object-uid=u2", "-n", "default"],
    url: "/api/v1/namespaces/default/serviceaccounts/robot/token",
    protobuf: "azhzAAooChhhdXRoZW50aWNhdGlvbi5rOHMuaW8vdjESDFRva2VuUmVxdWVzdBItChAKABIAGgAiACoAMgA4AEIAEhMaEQoDUG9kEgJ2MRoCcDEiAnUyGgQKABIAGgAiAA==",
    json: {"kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1", "metadata": {"creationTimestamp": null}, "spec": {"audiences": null, "expirationSeconds": null, "boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "p1", "uid": "u2"}}, "status": {"token": "", "expirationTimestamp": null}},
  },
  {
    name: "debug-copy-pod",
    args: ["debug", "src", "-n", "default", "--copy-to=src-copy", "--image=busybox", "--container=dbg", "--attach=false", "--keep-labels", "--keep-annotations", "--keep-liveness", "--keep-readiness", "--keep-startup", "--same-node", "--profile=legacy"],
    url: "/api/v1/namespaces/default/pods",
    protobuf: "azhzAAoJCgJ2MRIDUG9kEpMSCioKCHNyYy1jb3B5EgAaB2RlZmF1bHQiACoAMgA4AEIAYgkKBG5vdGUSAXgSzxEKHQoHc2NyYXRjaBISEhAKBk1lbW9yeRIGCgQ2NE1pCg0KBWVtcHR5EgQSAgoACiwKA2NmZxIlmgEiCgwKCmFwcC1jb25maWcSDQoBYRIFYS50eHQYgAIYpAMgAAoSCgNzZWMSCzIJCgVjcmVkcyABCh8KBGhvc3QSFwoVCggvdmFyL2xvZxIJRGlyZWN0b3J5ChMKBWNsYWltEgpSCAoEZGF0YRABCosBCgRwcm9qEoIB0gF/ChMiEQoFdmF1bHQQkBwaBXRva2VuCkQSQgofCgZsYWJlbHMSFQoCdjESD21ldGFkYXRhLmxhYmVscwofCgNjcHUaGAoEbWFpbhIKbGltaXRzLmNwdRoECgIxbQoNGgsKBwoFZXh0cmEgAQoQCg4KBAoCczISBgoBaxIBcBCkAgpbCgNlcGgSVOoBUQpPChgKABIAGgAiACoAMgA4AEIAWgYKAXgSAXkSMwoNUmVhZFdyaXRlT25jZRISEhAKB3N0b3JhZ2USBQoDMUdpGgAqADIKRmlsZXN5c3RlbQoyCgNjc2kSK+IBKAoPY3NpLmV4YW1wbGUuY29tEAAiCQoEc2l6ZRIBMSoICgZjc2lzZWMKHwoDbmZzEhg6FgoIMTAuMC4wLjESCC9leHBvcnRzGAAKJgoDaW1nEh/yARwKDGJ1c3lib3g6MS4zNhIMSWZOb3RQcmVzZW50EswGCgRtYWluEgpuZ2lueDoxLjI1GgcvYmluL3NoGgItYyIKZXhlYyBuZ2lueCIAKgQvc3J2MhEKBGh0dHAQABhQIgNUQ1AqADIVCgAQ6SkYNSIDVURQKgcwLjAuMC4wOgoKBVBMQUlOEgF2OgkKBUVNUFRZEgA6IgoHRlJPTV9DTRIAGhUaEwoMCgphcHAtY29uZmlnEgFrGAE6JgoLRlJPTV9TRUNSRVQSABoVIhMKBwoFY3JlZHMSCHBhc3N3b3JkOh4KBlBPRF9JUBIAGhIKEAoAEgxzdGF0dXMucG9kSVA6IwoDTUVNEgAaGhIYCgASDWxpbWl0cy5tZW1vcnkaBQoDMU1pQoABCg0KA2NwdRIGCgQ1MDBtChEKBm1lbW9yeRIHCgUxMjhNaQoVCg5udmlkaWEuY29tL2dwdRIDCgExEg0KA2NwdRIGCgQyNTBtEhkKEWVwaGVtZXJhbC1zdG9yYWdlEgQKAjFHEhAKBm1lbW9yeRIGCgQ2NE1pGgkKA2dwdRICcjFKGgoDY2ZnEAEaCC9ldGMvY2ZnIgVhLnR4dDIASi4KBGhvc3QQABoFL2hvc3QiACoPSG9zdFRvQ29udGFpbmVyMgA6CERpc2FibGVkSh4KB3NjcmF0Y2gQABoEL3RtcCIAMgkkKFBPRF9JUClSNwopEicKCC9oZWFsdGh6EgoIARAAGgRodHRwGgAiBEhUVFAqBwoDWC1BEgAQABgBIAooATADOABaGAoMGgoKBggAEFAaABIAEAUYACAAKAAwAGIiChEKDwoFdG91Y2gKBi9yZWFkeRIEIgIIBRoHU0lHVEVSTWoUL2Rldi90ZXJtaW5hdGlvbi1sb2dyBkFsd2F5c3pgChAKCU5FVF9BRE1JThIDQUxMEAAaDQoAEgAaACIFczA6YzEgACgAMAE4AEDoB0oHRGVmYXVsdFIFGgF1IABaEAoOUnVudGltZURlZmF1bHRiDgoJTG9jYWxob3N0EgFwgAEBiAEAkAEBmgEYCgRDRkdfEhAKDAoKYXBwLWNvbmZpZxAAmgENCgAaCQoHCgVjcmVkc6IBFUZhbGxiYWNrVG9Mb2dzT25FcnJvcqoBEgoFY2xhaW0SCS9kZXYveHZkYRImCgNkYmcSB2J1c3lib3gqAEIAagByAIABAIgBAJABAKIBBEZpbGUaCU9uRmFpbHVyZSAAKNgEMhdDbHVzdGVyRmlyc3RXaXRoSG9zdE5ldDoLCgRkaXNrEgNzc2Q6CQoFZW1wdHkSAEIFcm9ib3RKAFIAWAFgAGgBcmMQ6AcYASC4FyAAKNAPOhoKEm5ldC5jb3JlLnNvbWF4Y29ubhIEMTAyNEoOT25Sb290TWlzbWF0Y2hSFgoJTG9jYWxob3N0Eglwcm9mLmpzb25iBU1lcmdlaglSZWN1cnNpdmV6BQoDcmVnegIKAIIBAWiKAQNzdWKSAa8BCkUKMAouChAKBHpvbmUSAkluGgFhGgFiEhoKDW1ldGFkYXRhLm5hbWUSBU5vdEluGgJuMRIRCAESDQoLCgFrEgZFeGlzdHMSGQoXCg8SDQoDYXBwEgJJbhoCZGIaBHpvbmUaSxJJCGQSRQoNCgsKA2FwcBIEcmljaBIHZGVmYXVsdBoWa3ViZXJuZXRlcy5pby9ob3N0bmFtZSIAKhFwb2QtdGVtcGxhdGUtaGFzaJoBEWRlZmF1bHQtc2NoZWR1bGVyogFqCgdzaWRlY2FyEgVlbnZveSoAMhAKBWFkbWluEAAYrU0iACoAQgBqAHIAgAEAiAEAkAEAogEAsgETCgciBQitTRIAEAAYACABKAAwHroBEgoDY3B1EgtOb3RSZXF1aXJlZMIBBkFsd2F5c6gBALIBGgoBaxIFRXF1YWwaAXYiCU5vRXhlY3V0ZSgAsgEOCgASBkV4aXN0cxoAIgC6ASEKCTEyNy4wLjAuMRIJZm9vLmxvY2FsEgliYXIubG9jYWzCAQRoaWdoyAEA0gEmCgcxLjEuMS4xEgZucy5zdmMaCgoFbmRvdHMSATIaBwoFZWRuczDYAQDiARMKEWV4YW1wbGUuY29tL3JlYWR56gEGZ3Zpc29y8AEA+gEFTmV2ZXKCAg0KA2NwdRIGCgQxMDBtigI8CAESBHpvbmUaDURvTm90U2NoZWR1bGUiDQoLCgNhcHASBHJpY2goAjIFSG9ub3I6Bklnbm9yZUIDcmV2mAIBogIHCgVsaW51eKgCALICEgoQZXhhbXBsZS5jb20vZ2F0ZboCDwoDZ3B1IghncHUtdG1wbMICDAoKCgNjcHUSAwoBMhoTCgAaACIAKgAyAEoAWgByAIgBABoAIgA=",
    json: {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "src-copy", "namespace": "default", "creationTimestamp": null, "annotations": {"note": "x"}}, "spec": {"volumes": [{"name": "scratch", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}}, {"name": "empty", "emptyDir": {}}, {"name": "cfg", "configMap": {"name": "app-config", "items": [{"key": "a", "path": "a.txt", "mode": 256}], "defaultMode": 420, "optional": false}}, {"name": "sec", "secret": {"secretName": "creds", "optional": true}}, {"name": "host", "hostPath": {"path": "/var/log", "type": "Directory"}}, {"name": "claim", "persistentVolumeClaim": {"claimName": "data", "readOnly": true}}, {"name": "proj", "projected": {"sources": [{"serviceAccountToken": {"audience": "vault", "expirationSeconds": 3600, "path": "token"}}, {"downwardAPI": {"items": [{"path": "labels", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels"}}, {"path": "cpu", "resourceFieldRef": {"containerName": "main", "resource": "limits.cpu", "divisor": "1m"}}]}}, {"configMap": {"name": "extra", "optional": true}}, {"secret": {"name": "s2", "items": [{"key": "k", "path": "p"}]}}], "defaultMode": 292}}, {"name": "eph", "ephemeral": {"volumeClaimTemplate": {"metadata": {"creationTimestamp": null, "labels": {"x": "y"}}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, "storageClassName": "", "volumeMode": "Filesystem"}}}}, {"name": "csi", "csi": {"driver": "csi.example.com", "readOnly": false, "volumeAttributes": {"size": "1"}, "nodePublishSecretRef": {"name": "csisec"}}}, {"name": "nfs", "nfs": {"server": "10.0.0.1", "path": "/exports"}}, {"name": "img", "image": {"reference": "busybox:1.36", "pullPolicy": "IfNotPresent"}}], "initContainers": [{"name": "sidecar", "image": "envoy", "ports": [{"name": "admin", "containerPort": 9901}], "resources": {}, "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}], "restartPolicy": "Always", "startupProbe": {"grpc": {"port": 9901, "service": ""}, "periodSeconds": 1, "failureThreshold": 30}}], "containers": [{"name": "main", "image": "nginx:1.25", "command": ["/bin/sh", "-c"], "args": ["exec nginx", ""], "workingDir": "/srv", "ports": [{"name": "http", "containerPort": 80, "protocol": "TCP"}, {"hostPort": 5353, "containerPort": 53, "protocol": "UDP", "hostIP": "0.0.0.0"}], "envFrom": [{"prefix": "CFG_", "configMapRef": {"name": "app-config", "optional": false}}, {"secretRef": {"name": "creds"}}], "env": [{"name": "PLAIN", "value": "v"}, {"name": "EMPTY"}, {"name": "FROM_CM", "valueFrom": {"configMapKeyRef": {"name": "app-config", "key": "k", "optional": true}}}, {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "password"}}}, {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}, {"name": "MEM", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}}}], "resources": {"limits": {"cpu": "500m", "memory": "128Mi", "nvidia.com/gpu": "1"}, "requests": {"cpu": "250m", "ephemeral-storage": "1G", "memory": "64Mi"}, "claims": [{"name": "gpu", "request": "r1"}]}, "volumeMounts": [{"name": "cfg", "readOnly": true, "mountPath": "/etc/cfg", "subPath": "a.txt"}, {"name": "host", "recursiveReadOnly": "Disabled", "mountPath": "/host", "mountPropagation": "HostToContainer"}, {"name": "scratch", "mountPath": "/tmp", "subPathExpr": "$(POD_IP)"}], "volumeDevices": [{"name": "claim", "devicePath": "/dev/xvda"}], "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP", "httpHeaders": [{"name": "X-A", "value": ""}]}, "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3, "terminationGracePeriodSeconds": 0}, "readinessProbe": {"tcpSocket": {"port": 80}, "initialDelaySeconds": 5}, "lifecycle": {"postStart": {"exec": {"command": ["touch", "/ready"]}}, "preStop": {"sleep": {"seconds": 5}}, "stopSignal": "SIGTERM"}, "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "FallbackToLogsOnError", "imagePullPolicy": "Always", "securityContext": {"capabilities": {"add": ["NET_ADMIN"], "drop": ["ALL"]}, "privileged": false, "seLinuxOptions": {"level": "s0:c1"}, "windowsOptions": {"runAsUserName": "u", "hostProcess": false}, "runAsUser": 0, "runAsGroup": 1000, "runAsNonRoot": false, "readOnlyRootFilesystem": true, "allowPrivilegeEscalation": false, "procMount": "Default", "seccompProfile": {"type": "RuntimeDefault"}, "appArmorProfile": {"type": "Localhost", "localhostProfile": "p"}}, "stdin": true, "tty": true}, {"name": "dbg", "image": "busybox", "resources": {}, "terminationMessagePolicy": "File"}], "restartPolicy": "OnFailure", "terminationGracePeriodSeconds": 0, "activeDeadlineSeconds": 600, "dnsPolicy": "ClusterFirstWithHostNet", "nodeSelector": {"disk": "ssd", "empty": ""}, "serviceAccountName": "robot", "automountServiceAccountToken": false, "hostNetwork": true, "hostIPC": true, "shareProcessNamespace": false, "securityContext": {"runAsUser": 1000, "runAsNonRoot": true, "supplementalGroups": [3000, 0], "supplementalGroupsPolicy": "Merge", "fsGroup": 2000, "sysctls": [{"name": "net.core.somaxconn", "value": "1024"}], "fsGroupChangePolicy": "OnRootMismatch", "seccompProfile": {"type": "Localhost", "localhostProfile": "prof.json"}, "seLinuxChangePolicy": "Recursive"}, "imagePullSecrets": [{"name": "reg"}, {}], "hostname": "h", "subdomain": "sub", "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}], "matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n1"]}]}]}, "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {"matchExpressions": [{"key": "k", "operator": "Exists"}]}}]}, "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["db"]}]}, "topologyKey": "zone"}]}, "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "rich"}}, "namespaces": ["default"], "topologyKey": "kubernetes.io/hostname", "namespaceSelector": {}, "matchLabelKeys": ["pod-template-hash"]}}]}}, "schedulerName": "default-scheduler", "tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute", "tolerationSeconds": 0}, {"operator": "Exists"}], "hostAliases": [{"ip": "127.0.0.1", "hostnames": ["foo.local", "bar.local"]}], "priorityClassName": "high", "priority": 0, "dnsConfig": {"nameservers": ["1.1.1.1"], "searches": ["ns.svc"], "options": [{"name": "ndots", "value": "2"}, {"name": "edns0"}]}, "readinessGates": [{"conditionType": "example.com/ready"}], "runtimeClassName": "gvisor", "enableServiceLinks": false, "preemptionPolicy": "Never", "overhead": {"cpu": "100m"}, "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "rich"}}, "minDomains": 2, "nodeAffinityPolicy": "Honor", "nodeTaintsPolicy": "Ignore", "matchLabelKeys": ["rev"]}], "setHostnameAsFQDN": true, "os": {"name": "linux"}, "hostUsers": false, "schedulingGates": [{"name": "example.com/gate"}], "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-tmpl"}], "resources": {"limits": {"cpu": "2"}}}, "status": {}},
  },
];
