import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRequestInfo, resourceRequestInfo } from '../../../src/apiserver/handlers/request-info.js';

describe("the in-process client's request info", () => {
  it('is what parsing the path gives, for every method, scope, name and subresource', () => {
    const path = (apiVersion: string, plural: string, ns: string, name: string, sub: string) =>
      `${apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`}${ns ? `/namespaces/${encodeURIComponent(ns)}` : ''}/${plural}${name ? `/${encodeURIComponent(name)}` : ''}${sub ? `/${sub}` : ''}`;
    let n = 0;
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])
      for (const apiVersion of ['v1', 'apps/v1', 'policy/v1', 'k1s.dev/v1alpha1'])
        for (const plural of ['pods', 'namespaces', 'nodes', 'status', 'watch', 'events'])
          for (const ns of ['', 'default', 'we ird%'])
            // no name with '/': over HTTP its %2F splits the path as Go's server splits it (a subresource), while
            // the in-process client keeps it one (invalid) name; both end in an error
            for (const name of ['', 'p', 'a b', 'status', '%zz', 'é'])
              for (const sub of ['', 'status', 'binding', 'finalize']) {
                const p = path(apiVersion, plural, ns, name, sub);
                assert.deepEqual(resourceRequestInfo(method, p, apiVersion, plural, ns, name, sub), parseRequestInfo(method, p, new URLSearchParams()), `${method} ${p}`);
                n++;
              }
    assert.equal(n, 5 * 4 * 6 * 3 * 6 * 4);
  });
});
