// OpenAPI documents generated from k1s' own resource definitions: /openapi/v2 (Swagger 2.0, JSON or protobuf)
// and /openapi/v3 (an index plus one OpenAPI 3.0 document per group-version). Pure functions: definitions in, JSON out.
export { DEFAULT_INFO, openapiV2, type OpenAPIInfo } from './v2.js';
export { openapiV3GroupVersion, openapiV3Hash, openapiV3Index, openapiV3PathOf, parseOpenapiV3Path, type GroupVersion } from './v3.js';
export { negotiateOpenapiV2, OPENAPI_V2_PROTOBUF, openapiV2Protobuf } from './protobuf.js';
export { PATCH_TYPES, PATCH_TYPES_NO_SMP, type PathOptions } from './paths.js';
export { collectDefinitions, type GVK } from './definitions.js';
export { DEF, META_FALLBACKS } from './meta.js';
