// Starts refused for a reason the user can fix: printed as one line, without a stack.

export class StartRefused extends Error {
  override readonly name = 'StartRefused';
}

/** etcd did not answer at start (the store's open, or the bootstrap data read before it) */
export function etcdUnreachable(endpoints: string[], e: Error): StartRefused {
  const why = e.message.replace(/[\s.]*Resolution note:\s*$/, '');
  return new StartRefused(`cannot reach etcd at ${endpoints.join(',')} (${why}): start etcd, or check --datastore-endpoint and the --datastore-cafile/-certfile/-keyfile files`);
}
