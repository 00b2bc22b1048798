import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EtcdStore } from '../../../src/storage/etcd/store.js';
import type { Store } from '../../../src/storage/types.js';
import { EtcdCluster } from '../../etcd-member.js';
import { mustOk, rejectsWith } from './contract-helpers.js';
import { runStoreContract } from './contract.js';

// Each store gets a root of its own, so that the contract's tests do not see each other's keys.
let seq = 0;
const single: { c?: EtcdCluster } = {};
const triple: { c?: EtcdCluster } = {};
before(async () => {
  [single.c, triple.c] = await Promise.all([EtcdCluster.start(1), EtcdCluster.start(3)]);
});
after(async () => {
  await Promise.all([single.c?.stop(), triple.c?.stop()]);
});

const open = (c: { c?: EtcdCluster }, prefix = `/t${++seq}`) => EtcdStore.open({ endpoints: c.c!.endpoints, prefix, timeoutMs: 5000 });

runStoreContract('etcd', () => open(single), {
  reopen: async (closed) => open(single, (closed as EtcdStore).layout.root.slice(0, -1)),
});
runStoreContract('etcd, 3 members', () => open(triple));
