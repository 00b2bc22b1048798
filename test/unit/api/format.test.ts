import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  age,
  formatLabels,
  formatLabelSelector,
  humanDuration,
  isConfigMapKey,
  parseTime,
  shortHumanDuration,
} from '../../../src/api/format.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('humanDuration (apimachinery duration.HumanDuration)', () => {
  const table: Array<[number, string]> = [
    [-2 * S, '<invalid>'],
    [-1.5 * S, '0s'],
    [-1 * S, '0s'],
    [0, '0s'],
    [999, '0s'],
    [45 * S, '45s'],
    [119 * S, '119s'],
    [120 * S, '2m'],
    [130 * S, '2m10s'],
    [9 * M + 59 * S, '9m59s'],
    [10 * M, '10m'],
    [10 * M + 30 * S, '10m'],
    [90 * M, '90m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [3 * H + 10 * M, '3h10m'],
    [7 * H + 59 * M, '7h59m'],
    [8 * H, '8h'],
    [30 * H, '30h'],
    [47 * H + 59 * M, '47h'],
    [48 * H, '2d'],
    [5 * D + 2 * H, '5d2h'],
    [7 * D + 23 * H, '7d23h'],
    [8 * D, '8d'],
    [8 * D + 5 * H, '8d'],
    [729 * D, '729d'],
    [730 * D, '2y'],
    [731 * D, '2y1d'],
    [8 * 365 * D - D, '7y364d'],
    [8 * 365 * D, '8y'],
    [20 * 365 * D + 100 * D, '20y'],
  ];
  for (const [ms, want] of table) it(`${ms}ms → ${want}`, () => assert.equal(humanDuration(ms), want));
});

describe('shortHumanDuration', () => {
  const table: Array<[number, string]> = [
    [-3 * S, '<invalid>'],
    [-1 * S, '0s'],
    [59 * S, '59s'],
    [60 * S, '1m'],
    [59 * M, '59m'],
    [H, '1h'],
    [23 * H, '23h'],
    [D, '1d'],
    [364 * D, '364d'],
    [365 * D, '1y'],
  ];
  for (const [ms, want] of table) it(`${ms}ms → ${want}`, () => assert.equal(shortHumanDuration(ms), want));
});

describe('age cells', () => {
  const now = Date.parse('2024-05-01T12:00:00Z');
  it('formats time since a timestamp', () => {
    assert.equal(age('2024-05-01T11:55:00Z', now), '5m');
    assert.equal(age('2024-05-01T11:54:50Z', now), '5m10s');
    assert.equal(age('2024-05-01T11:59:59.500000Z', now), '0s');
  });
  it('prints <unknown> for missing or zero times', () => {
    assert.equal(age(undefined, now), '<unknown>');
    assert.equal(age(null, now), '<unknown>');
    assert.equal(age('', now), '<unknown>');
    assert.equal(age('0001-01-01T00:00:00Z', now), '<unknown>');
    assert.equal(parseTime('garbage'), undefined);
  });
});

describe('label formatting', () => {
  it('joins labels sorted, <none> when empty', () => {
    assert.equal(formatLabels({ b: '2', a: '1' }), 'a=1,b=2');
    assert.equal(formatLabels({}), '<none>');
    assert.equal(formatLabels(undefined), '<none>');
  });
  it('formats label selectors as metav1.FormatLabelSelector', () => {
    assert.equal(formatLabelSelector({ matchLabels: { app: 'web' } }), 'app=web');
    assert.equal(
      formatLabelSelector({
        matchLabels: { tier: 'fe' },
        matchExpressions: [
          { key: 'env', operator: 'In', values: ['prod', 'dev'] },
          { key: 'z', operator: 'DoesNotExist' },
          { key: 'b', operator: 'Exists' },
          { key: 'c', operator: 'NotIn', values: ['x'] },
        ],
      }),
      'b,c notin (x),env in (dev,prod),tier=fe,!z',
    );
    assert.equal(formatLabelSelector({}), '<none>');
    assert.equal(formatLabelSelector(null), '<none>');
    assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Bogus' }] }), '<error>');
  });
});

describe('isConfigMapKey', () => {
  it('accepts valid keys', () => {
    assert.deepEqual(isConfigMapKey('key.name'), []);
    assert.deepEqual(isConfigMapKey('KEY_NAME-1'), []);
    assert.deepEqual(isConfigMapKey('.hidden'), []);
  });
  it('rejects with Kubernetes messages', () => {
    assert.deepEqual(isConfigMapKey('a b'), [
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
    assert.deepEqual(isConfigMapKey('..'), ["must not be '..'"]);
    assert.deepEqual(isConfigMapKey('..a'), ["must not start with '..'"]);
    assert.deepEqual(isConfigMapKey('x'.repeat(254)), ['must be no more than 253 characters']);
  });
});
