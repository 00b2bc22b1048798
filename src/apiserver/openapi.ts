// OpenAPI documents generated from k1s' own resource definitions: /openapi/v2 (Swagger 2.0, JSON or protobuf)
// and /openapi/v3 (an index plus one OpenAPI 3.0 document per group-version). Pure functions: definitions in, JSON out.
export { DEFAULT_INFO, openapiV2, type OpenAPIInfo } from './openapi-v2.js';
export { openapiV3GroupVersion, openapiV3Hash, openapiV3Index, openapiV3PathOf, parseOpenapiV3Path, type GroupVersion } from './openapi-v3.js';
export { negotiateOpenapiV2, OPENAPI_V2_PROTOBUF, openapiV2Protobuf } from './openapi-proto.js';
export { PATCH_TYPES, PATCH_TYPES_NO_SMP, type PathOptions } from './openapi-paths.js';
export { collectDefinitions, type GVK } from './openapi-defs.js';
export { DEF, META_FALLBACKS } from './openapi-meta.js';
