// authentication.k8s.io/v1 TokenRequest: the body and answer of serviceaccounts/<name>/token.
import { s, type Definitions } from '../../machinery/schema.js';
import { kindHeader } from '../meta.js';

const AN = 'io.k8s.api.authentication.v1.';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

export const tokenRequestDefinitions: Definitions = {
  [`${AN}TokenRequest`]: s.obj(
    {
      ...kindHeader(),
      metadata: s.ref(`${META}ObjectMeta`, "Standard object's metadata."),
      spec: s.ref(`${AN}TokenRequestSpec`, 'Spec holds information about the request being evaluated'),
      status: s.ref(`${AN}TokenRequestStatus`, 'Status is filled in by the server and indicates whether the token can be authenticated.'),
    },
    { description: 'TokenRequest requests a token for a given service account.', required: ['spec'] },
  ),
  [`${AN}TokenRequestSpec`]: s.obj(
    {
      audiences: s.arr(s.str(), {
        description:
          'Audiences are the intended audiences of the token. A recipient of the token must identify itself with an audience in this list, or reject the token. Empty means the API server\'s own audience.',
      }),
      expirationSeconds: s.int64('ExpirationSeconds is the requested duration of validity of the token (at least 10 minutes; default one hour).'),
      boundObjectRef: s.ref(`${AN}BoundObjectReference`, 'BoundObjectRef is a reference to an object (a Pod, Secret or Node) that the token is bound to: it stops being valid when that object is deleted.'),
    },
    { description: 'TokenRequestSpec contains client provided parameters of a token request.', required: ['audiences'] },
  ),
  [`${AN}TokenRequestStatus`]: s.obj(
    {
      token: s.str('Token is the opaque bearer token.', { default: '' }),
      expirationTimestamp: s.time('ExpirationTimestamp is the time of expiration of the returned token.'),
    },
    { description: 'TokenRequestStatus is the result of a token request.', required: ['token', 'expirationTimestamp'] },
  ),
  [`${AN}BoundObjectReference`]: s.obj(
    {
      kind: s.str('Kind of the referent. Valid kinds are "Pod", "Node" and "Secret".'),
      apiVersion: s.str('API version of the referent.'),
      name: s.str('Name of the referent.'),
      uid: s.str('UID of the referent.'),
    },
    { description: 'BoundObjectReference is a reference to an object that a token is bound to.' },
  ),
};

export const tokenRequestAction = {
  name: 'token',
  verbs: ['create'],
  kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
};
