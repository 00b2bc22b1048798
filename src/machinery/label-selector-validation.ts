// metav1validation.ValidateLabelSelector: a selector field inside an object is checked for 422 causes, which differ
// from the 400 a malformed query selector gets (labels.ts).
import { FieldError } from './errors.js';
import type { MetaLabelSelector } from './labels.js';
import { isValidLabelValue, validateLabelName, validateLabels } from './validation.js';

export interface LabelSelectorValidationOptions {
  allowInvalidLabelValueInSelector?: boolean;
  allowUnknownOperatorInRequirement?: boolean;
}

/** metav1validation.ValidateLabelSelector: the checks for a selector field inside an object (422 causes). */
export function validateLabelSelector(
  ls: MetaLabelSelector | undefined | null,
  fieldPath: string,
  opts: LabelSelectorValidationOptions = {},
): FieldError[] {
  if (!ls) return [];
  const errs = validateLabels(ls.matchLabels, `${fieldPath}.matchLabels`);
  (ls.matchExpressions ?? []).forEach((expr, i) => {
    const p = `${fieldPath}.matchExpressions[${i}]`;
    const values = expr.values ?? [];
    switch (expr.operator) {
      case 'In': case 'NotIn':
        if (values.length === 0) errs.push(FieldError.required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists': case 'DoesNotExist':
        if (values.length > 0) errs.push(FieldError.forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        if (!opts.allowUnknownOperatorInRequirement) errs.push(FieldError.invalid(`${p}.operator`, expr.operator, 'not a valid selector operator'));
    }
    errs.push(...validateLabelName(expr.key, `${p}.key`));
    if (!opts.allowInvalidLabelValueInSelector) {
      values.forEach((v, j) => errs.push(...isValidLabelValue(v).map((m) => FieldError.invalid(`${p}.values[${j}]`, v, m))));
    }
  });
  return errs;
}
