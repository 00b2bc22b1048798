// Query parameters read as kube's parameter codec reads them into ListOptions/DeleteOptions.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { queryBool, queryInt64 } from '../../../../src/apiserver/handlers/query-params.js';
import { parseRequestInfo } from '../../../../src/apiserver/handlers/request-info.js';
import { StatusError } from '../../../../src/machinery/errors.js';

const q = (s: string) => new URLSearchParams(s);

describe('query parameters', () => {
  it('reads booleans as apimachinery does: only "false" and "0" (any case) are false, anything else is true', () => {
    for (const v of ['true', 'True', 'TRUE', '1', 't', 'yes', 'maybe', '']) assert.equal(queryBool(q(`watch=${v}`), 'watch'), true, v);
    for (const v of ['false', 'False', 'FALSE', 'fAlSe', '0']) assert.equal(queryBool(q(`watch=${v}`), 'watch'), false, v);
    assert.equal(queryBool(q('other=1'), 'watch'), undefined);
    // the first value counts, as Go's url.Values[0]
    assert.equal(queryBool(q('watch=0&watch=1'), 'watch'), false);
  });
  it('reads integers as strconv.ParseInt(v, 10, 64), with its error texts as a 400', () => {
    assert.equal(queryInt64(q('limit=500'), 'limit'), 500);
    assert.equal(queryInt64(q('limit=%2B7'), 'limit'), 7);
    // '+' is a space in a query, as Go's url.ParseQuery reads it too
    assert.throws(() => queryInt64(q('limit=+7'), 'limit'), /parsing " 7": invalid syntax/);
    assert.equal(queryInt64(q('limit=-3'), 'limit'), -3);
    assert.equal(queryInt64(q('x=1'), 'limit'), undefined);
    const bad = (v: string) => {
      try {
        queryInt64(q(`limit=${encodeURIComponent(v)}`), 'limit');
      } catch (e) {
        assert.ok(e instanceof StatusError);
        assert.equal(e.code, 400);
        assert.equal(e.reason, 'BadRequest');
        return e.message;
      }
      assert.fail(`${v} was accepted`);
    };
    assert.equal(bad('abc'), 'strconv.ParseInt: parsing "abc": invalid syntax');
    assert.equal(bad(''), 'strconv.ParseInt: parsing "": invalid syntax');
    assert.equal(bad('1.5'), 'strconv.ParseInt: parsing "1.5": invalid syntax');
    assert.equal(bad(' 1'), 'strconv.ParseInt: parsing " 1": invalid syntax');
    assert.equal(bad('1_000'), 'strconv.ParseInt: parsing "1_000": invalid syntax');
    assert.equal(bad('9223372036854775808'), 'strconv.ParseInt: parsing "9223372036854775808": value out of range');
    assert.equal(bad('a"b'), 'strconv.ParseInt: parsing "a\\"b": invalid syntax');
  });
  it('makes a collection GET a watch by the same rule, and leaves a named GET a get', () => {
    const verb = (path: string, query: string) => parseRequestInfo('GET', path, q(query)).verb;
    assert.equal(verb('/api/v1/pods', 'watch=True'), 'watch');
    assert.equal(verb('/api/v1/pods', 'watch=maybe'), 'watch');
    assert.equal(verb('/api/v1/pods', 'watch=FALSE'), 'list');
    assert.equal(verb('/api/v1/pods', 'watch=0'), 'list');
    assert.equal(verb('/api/v1/pods', ''), 'list');
    assert.equal(verb('/api/v1/namespaces/default/pods/p', 'watch=true'), 'get');
    assert.equal(verb('/api/v1/watch/namespaces/default/pods/p', ''), 'watch');
  });
});
