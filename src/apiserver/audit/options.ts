// kube-apiserver's audit flags (--audit-policy-file, --audit-log-*) → an Auditor with its log writer, checked as
// kube checks them: a bad policy or a negative number is a start-up error; a policy without a log path (or a log
// path without a policy) records nothing.
import { Auditor } from './auditor.js';
import { AuditLogWriter } from './log-writer.js';
import { loadPolicyFile, PolicyEvaluator, type Policy } from './policy.js';

export interface AuditOptions {
  policyFile?: string;
  /** the policy file's content when the caller has read it already */
  policy?: Policy;
  /** the log file, "-" for stdout */
  logPath?: string;
  maxSizeMB?: number;
  maxBackups?: number;
  maxAgeDays?: number;
  compress?: boolean;
}

/** the flag errors, as kube-apiserver words them */
export function validateAuditOptions(o: AuditOptions): string[] {
  const errs: string[] = [];
  if (!o.logPath) return errs;
  for (const [flag, v] of [['--audit-log-maxage', o.maxAgeDays], ['--audit-log-maxbackup', o.maxBackups], ['--audit-log-maxsize', o.maxSizeMB]] as const) {
    if (v !== undefined && v < 0) errs.push(`${flag} ${v} can't be a negative number`);
  }
  return errs;
}

/** The auditor, or undefined when auditing is off; throws with kube's message for a bad policy file. */
export function createAuditor(o: AuditOptions, log: (line: string) => void): { auditor: Auditor; writer: AuditLogWriter } | undefined {
  const errs = validateAuditOptions(o);
  if (errs.length) throw new Error(errs.join('; '));
  if (!o.policyFile) {
    if (o.logPath) log('k1s: no audit policy file provided, no events will be recorded for the log backend');
    return undefined;
  }
  const policy = o.policy ?? loadAuditPolicy(o.policyFile, log);
  if (!o.logPath) {
    log('k1s: an audit policy but no --audit-log-path: no audit backend, no events are recorded');
    return undefined;
  }
  const writer = new AuditLogWriter({ path: o.logPath, maxSizeMB: o.maxSizeMB, maxBackups: o.maxBackups, maxAgeDays: o.maxAgeDays, compress: o.compress, log });
  log(`k1s: audit log ${o.logPath === '-' ? 'to stdout' : `at ${o.logPath}`} (${policy.rules.length} policy rules from ${o.policyFile})`);
  return { auditor: new Auditor(new PolicyEvaluator(policy), writer), writer };
}

/** the policy file, or kube-apiserver's error ("loading audit policy file: …: from file PATH") */
export function loadAuditPolicy(file: string, log: (line: string) => void): Policy {
  try {
    return loadPolicyFile(file, log);
  } catch (e) {
    throw new Error(`loading audit policy file: ${(e as Error).message}`);
  }
}
