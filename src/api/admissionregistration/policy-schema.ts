// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy(Binding) definitions (staging/src/k8s.io/api/
// admissionregistration/v1/types.go). CEL expressions are plain strings here: k1s stores them without compiling.
import { s, type Definitions } from '../../machinery/schema.js';
import { AR, ruleFields } from './webhook-schema.js';
import { kindHeader, listDefinition, META } from '../meta.js';

const strList = (description: string) => s.arr(s.str(undefined, { default: '' }), { description });
const reqStr = (description: string) => s.str(description, { default: '' });
const item = (name: string) => s.ref(`${AR}${name}`, undefined, { default: {} });
const SPEC_STATUS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status';

export const policyDefinitions: Definitions = {
  [`${AR}ParamKind`]: s.obj(
    {
      apiVersion: s.str('APIVersion is the API group version the resources belong to, in "group/version" form. Required.'),
      kind: s.str('Kind is the API kind the resources belong to. Required.'),
    },
    { description: 'ParamKind names the API version and kind of a policy\'s parameter objects.', mapType: 'atomic' },
  ),
  [`${AR}NamedRuleWithOperations`]: s.obj(
    { ...ruleFields(), resourceNames: strList('ResourceNames optionally limits the rule to objects with these names; empty means all names.') },
    { description: 'NamedRuleWithOperations is a RuleWithOperations optionally limited to some object names.', mapType: 'atomic' },
  ),
  [`${AR}MatchResources`]: s.obj(
    {
      excludeResourceRules: s.arr(item('NamedRuleWithOperations'), {
        description: 'ExcludeResourceRules describes the operations on resources the policy should not care about. Exclusion wins over inclusion.',
      }),
      matchPolicy: s.str('matchPolicy defines how the "MatchResources" list is used to match incoming requests: "Exact" or "Equivalent". Defaults to "Equivalent"'),
      namespaceSelector: s.ref(META.LabelSelector, 'NamespaceSelector decides, by namespace labels, whether to run the policy on an object. Default to the empty LabelSelector, which matches everything.'),
      objectSelector: s.ref(META.LabelSelector, 'ObjectSelector decides, by object labels, whether to run the policy. Default to the empty LabelSelector, which matches everything.'),
      resourceRules: s.arr(item('NamedRuleWithOperations'), {
        description: 'ResourceRules describes what operations on what resources/subresources the policy matches. The policy cares about an operation if it matches any rule.',
      }),
    },
    {
      description:
        'MatchResources selects the requests a policy applies to, by resource rules and namespace and object labels. Exclusions win over inclusions.',
      mapType: 'atomic',
    },
  ),
  [`${AR}Validation`]: s.obj(
    {
      expression: reqStr('Expression is the CEL expression to evaluate; the request is admitted only if it evaluates to true. Required.'),
      message: s.str('Message is the message shown when the validation fails. It may not contain line breaks.'),
      messageExpression: s.str('messageExpression is a CEL expression producing the failure message; it takes precedence over message.'),
      reason: s.str('Reason is the machine-readable reason returned to the client when the validation fails (Forbidden, Invalid or RequestEntityTooLarge). Defaults to Invalid.'),
    },
    { description: 'Validation is one CEL check of a policy, with the message and reason reported when it fails.', required: ['expression'] },
  ),
  [`${AR}Variable`]: s.obj(
    {
      expression: reqStr('Expression is the CEL expression computing the value of the variable.'),
      name: reqStr('Name is the name of the variable; a valid CEL identifier, unique among the variables. Reachable as `variables.<name>`.'),
    },
    { description: 'Variable is a named CEL expression the other expressions of a policy can refer to.', required: ['name', 'expression'], mapType: 'atomic' },
  ),
  [`${AR}AuditAnnotation`]: s.obj(
    {
      key: reqStr('key specifies the audit annotation key; "<policy name>/<key>" must be a valid qualified name. Required.'),
      valueExpression: reqStr('valueExpression is a CEL expression producing the audit annotation value (a string, or null to skip). Required.'),
    },
    { description: 'AuditAnnotation is a CEL expression whose value is added to the audit event of a request.', required: ['key', 'valueExpression'] },
  ),
  [`${AR}ValidatingAdmissionPolicySpec`]: s.obj(
    {
      auditAnnotations: s.arr(item('AuditAnnotation'), { description: 'auditAnnotations are CEL expressions producing audit annotations for the requests the policy checks.' }),
      failurePolicy: s.str('failurePolicy says how to handle a policy that fails to evaluate (misconfiguration, missing param): Ignore or Fail. Defaults to Fail.'),
      matchConditions: s.arr(item('MatchCondition'), {
        mergeKey: 'name',
        description: 'MatchConditions is a list of conditions that must all hold for the policy to be evaluated. At most 64 entries.',
      }),
      matchConstraints: s.ref(`${AR}MatchResources`, 'MatchConstraints specifies what resources this policy is designed to validate. Required.'),
      paramKind: s.ref(`${AR}ParamKind`, 'ParamKind specifies the kind of resources used to parameterize this policy. If absent, the policy has no parameters.'),
      validations: s.arr(item('Validation'), { description: 'Validations are the CEL checks of the policy. Validations and AuditAnnotations may not both be empty.' }),
      variables: s.arr(item('Variable'), {
        mergeKey: 'name',
        description: 'Variables contain named CEL expressions available to the other expressions of the policy as `variables.<name>`.',
      }),
    },
    { description: 'ValidatingAdmissionPolicySpec is what a ValidatingAdmissionPolicy checks and when.' },
  ),
  [`${AR}ExpressionWarning`]: s.obj(
    {
      fieldRef: reqStr('The path of the expression the warning is about, e.g. "spec.validations[0].expression".'),
      warning: reqStr('The type-checking message, for humans.'),
    },
    { description: 'ExpressionWarning is a type-checking warning about one expression.', required: ['fieldRef', 'warning'] },
  ),
  [`${AR}TypeChecking`]: s.obj(
    { expressionWarnings: s.arr(item('ExpressionWarning'), { description: 'The type checking warnings for each expression.' }) },
    { description: 'TypeChecking holds the results of type-checking the expressions of a policy.' },
  ),
  [`${AR}ValidatingAdmissionPolicyStatus`]: s.obj(
    {
      conditions: s.arr(s.ref(META.Condition, undefined, { default: {} }), {
        listType: 'map',
        mapKeys: ['type'],
        description: "Conditions are the latest observations of the policy's state.",
      }),
      observedGeneration: s.int64('The generation observed by the controller.'),
      typeChecking: s.ref(`${AR}TypeChecking`, 'The results of type-checking each expression; present once type-checking has run.'),
    },
    { description: 'ValidatingAdmissionPolicyStatus is the observed state of a ValidatingAdmissionPolicy.' },
  ),
  [`${AR}ValidatingAdmissionPolicy`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${AR}ValidatingAdmissionPolicySpec`, 'Specification of the desired behavior of the ValidatingAdmissionPolicy.', { default: {} }),
      status: s.ref(`${AR}ValidatingAdmissionPolicyStatus`, `Status is the observed state of the policy, including type-checking warnings. Set by the system; k1s leaves it empty. More info: ${SPEC_STATUS}`, { default: {} }),
    },
    { description: 'ValidatingAdmissionPolicy is a set of CEL checks that accept or reject requests without changing objects. k1s stores policies but does not enforce them.' },
  ),
  [`${AR}ParamRef`]: s.obj(
    {
      name: s.str('name is the name of the resource being referenced. Mutually exclusive with selector.'),
      namespace: s.str('namespace is the namespace of the referenced resource; empty for cluster-scoped params or to use the namespace of the object under admission.'),
      parameterNotFoundAction: s.str('parameterNotFoundAction controls what happens when no matching param exists: "Allow" or "Deny". Required.'),
      selector: s.ref(META.LabelSelector, 'selector selects parameter objects by label. Mutually exclusive with name.'),
    },
    { description: 'ParamRef says where a binding finds the parameter objects of its policy.', mapType: 'atomic' },
  ),
  [`${AR}ValidatingAdmissionPolicyBindingSpec`]: s.obj(
    {
      matchResources: s.ref(`${AR}MatchResources`, 'MatchResources further limits which resources the bound policy applies to; it can only narrow the policy\'s matchConstraints.'),
      paramRef: s.ref(`${AR}ParamRef`, 'paramRef points to the parameter objects of the bound policy.'),
      policyName: s.str('PolicyName is the name of the ValidatingAdmissionPolicy this binding applies. Required.'),
      validationActions: s.arr(s.str(undefined, { default: '' }), {
        listType: 'set',
        description: 'validationActions declares how failed validations are enforced: any of Deny, Warn and Audit (Deny and Warn not together). Required.',
      }),
    },
    { description: 'ValidatingAdmissionPolicyBindingSpec says which policy applies where, with which parameters and actions.' },
  ),
  [`${AR}ValidatingAdmissionPolicyBinding`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${AR}ValidatingAdmissionPolicyBindingSpec`, 'Specification of the desired behavior of the ValidatingAdmissionPolicyBinding.', { default: {} }),
    },
    { description: 'ValidatingAdmissionPolicyBinding binds a ValidatingAdmissionPolicy to resources, optionally with parameters. A policy without bindings has no effect.' },
  ),
  [`${AR}ValidatingAdmissionPolicyList`]: listDefinition(`${AR}ValidatingAdmissionPolicy`, 'ValidatingAdmissionPolicyList is a list of ValidatingAdmissionPolicy.', 'List of ValidatingAdmissionPolicy.'),
  [`${AR}ValidatingAdmissionPolicyBindingList`]: listDefinition(
    `${AR}ValidatingAdmissionPolicyBinding`,
    'ValidatingAdmissionPolicyBindingList is a list of ValidatingAdmissionPolicyBinding.',
    'List of PolicyBinding.',
  ),
};
