// apiregistration.k8s.io/v1 definitions (staging/src/k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/types.go),
// under the OpenAPI names kube-apiserver publishes.
import { s, type Definitions } from '../../machinery/schema.js';
import { kindHeader, listDefinition } from '../meta.js';

export const APIREG = 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.';

const reqStr = (description: string) => s.str(description, { default: '' });

export const apiregistrationDefinitions: Definitions = {
  [`${APIREG}ServiceReference`]: s.obj(
    {
      name: s.str('Name is the name of the service'),
      namespace: s.str('Namespace is the namespace of the service'),
      port: s.int32('If specified, the port on the service that hosting webhook. Default to 443 for backward compatibility. `port` should be a valid port number (1-65535, inclusive).'),
    },
    { description: 'ServiceReference holds a reference to Service.legacy.k8s.io' },
  ),
  [`${APIREG}APIServiceSpec`]: s.obj(
    {
      caBundle: s.bytes("CABundle is a PEM encoded CA bundle which will be used to validate an API server's serving certificate. If unspecified, system trust roots on the apiserver are used."),
      group: s.str('Group is the API group name this server hosts'),
      groupPriorityMinimum: s.int32(
        'GroupPriorityMinimum is the priority this group should have at least. Higher priority means that the group is preferred by clients over lower priority ones. The primary sort is based on GroupPriorityMinimum, ordered highest number to lowest (20 before 10); the secondary sort is the alphabetical comparison of the name of the object (v1.bar before v1.foo). *.k8s.io groups sit at 18000 and below; PaaSes are recommended to be in the 2000s.',
        { default: 0 },
      ),
      insecureSkipTLSVerify: s.bool('InsecureSkipTLSVerify disables TLS certificate verification when communicating with this server. This is strongly discouraged.  You should use the CABundle instead.'),
      service: s.ref(
        `${APIREG}ServiceReference`,
        'Service is a reference to the service for this API server.  It must communicate on port 443. If the Service is nil, that means the handling for the API groupversion is handled locally on this server. The call will simply delegate to the normal handler chain to be fulfilled.',
      ),
      version: s.str('Version is the API version this server hosts.  For example, "v1"'),
      versionPriority: s.int32(
        'VersionPriority controls the ordering of this API version inside of its group.  Must be greater than zero. The primary sort is based on VersionPriority, ordered highest to lowest (20 before 10). In case of equal version priorities, the version string is compared: "kube-like" versions (v10, v2, v1, v11beta2, v10beta3, v3beta1, v12alpha1, v11alpha2) sort above others, which are ordered lexicographically (foo1, foo10).',
        { default: 0 },
      ),
    },
    {
      description: 'APIServiceSpec contains information for locating and communicating with a server. Only https is supported, though you are able to disable certificate verification.',
      required: ['groupPriorityMinimum', 'versionPriority'],
    },
  ),
  [`${APIREG}APIServiceCondition`]: s.obj(
    {
      lastTransitionTime: s.time('Last time the condition transitioned from one status to another.'),
      message: s.str('Human-readable message indicating details about last transition.'),
      reason: s.str("Unique, one-word, CamelCase reason for the condition's last transition."),
      status: reqStr('Status is the status of the condition. Can be True, False, Unknown.'),
      type: reqStr('Type is the type of the condition.'),
    },
    { description: 'APIServiceCondition describes the state of an APIService at a particular point', required: ['type', 'status'] },
  ),
  [`${APIREG}APIServiceStatus`]: s.obj(
    {
      conditions: s.arr(s.ref(`${APIREG}APIServiceCondition`, undefined, { default: {} }), {
        mergeKey: 'type',
        description: 'Current service state of apiService.',
      }),
    },
    { description: 'APIServiceStatus contains derived information about an API server' },
  ),
  [`${APIREG}APIService`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${APIREG}APIServiceSpec`, 'Spec contains information for locating and communicating with a server', { default: {} }),
      status: s.ref(`${APIREG}APIServiceStatus`, 'Status contains derived information about an API server', { default: {} }),
    },
    { description: 'APIService represents a server for a particular GroupVersion. Name must be "version.group".' },
  ),
  [`${APIREG}APIServiceList`]: listDefinition(`${APIREG}APIService`, 'APIServiceList is a list of APIService objects.', 'Items is the list of APIService'),
};
