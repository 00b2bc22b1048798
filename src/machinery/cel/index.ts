// CEL for Kubernetes: environments with the Kubernetes libraries, declared types and JSON conversion, costs.
export { CelEnv, type CelEnvOptions, type CompileResult, type Program, type AstNode } from './env.js';
export { T, objectType, escapeName, toCel, dynToCel, measured, celEqual, typeString, MAX_REQUEST_SIZE, type DeclType, type DeclKind } from './types.js';
export { estimateCost, MAX_COST } from './cost.js';
export { CelRuntimeError, displayError } from './errors.js';
export { Optional } from '@marcbachmann/cel-js';
export { registerAuthz, celAuthorizer, AUTHORIZER_TYPE, type AuthzFunction, type AuthzUser, type AuthzAttributes, type AuthzDecision } from './lib-authz.js';
