// Real-node clusters side by side need their own bridge, pod and Service ranges and ingress ports: a cluster whose
// settings collide with another cluster's (defaults included) gets a free numbered slot, unless the user chose the
// colliding value on this command line. The chosen flags are kept with the cluster's state like typed ones.

interface NetworkSettings {
  bridge: string;
  clusterCIDR: string;
  serviceCIDR: string;
  httpPort: string;
  httpsPort: string;
}

const FLAGS: Record<keyof NetworkSettings, { flag: string; fallback: string }> = {
  bridge: { flag: '--cni-bridge', fallback: 'cni0' },
  clusterCIDR: { flag: '--cluster-cidr', fallback: '10.42.0.0/16' },
  serviceCIDR: { flag: '--service-cidr', fallback: '10.43.0.0/16' },
  httpPort: { flag: '--ingress-http-port', fallback: '80' },
  httpsPort: { flag: '--ingress-https-port', fallback: '443' },
};

const MAX_SLOT = 40;

function value(args: readonly string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

function settings(args: readonly string[]): NetworkSettings {
  const out = {} as NetworkSettings;
  for (const [k, { flag, fallback }] of Object.entries(FLAGS)) out[k as keyof NetworkSettings] = value(args, flag) ?? fallback;
  return out;
}

/** slot n: bridge k1s<n>, pods 10.(60+2n).0.0/16, Services 10.(61+2n).0.0/16, ingress 18080+n / 18443+n */
export function slotSettings(n: number): NetworkSettings {
  return {
    bridge: `k1s${n}`,
    clusterCIDR: `10.${60 + 2 * n}.0.0/16`,
    serviceCIDR: `10.${61 + 2 * n}.0.0/16`,
    httpPort: String(18080 + n),
    httpsPort: String(18443 + n),
  };
}

/**
 * The flags to add to `args` (this cluster's server flags) so that its network does not collide with `others`
 * (the server flags of the other real-node clusters); `typed` are the flags given on this command line, which are
 * never overridden. Returns [] when nothing collides.
 */
export function sideBySideArgs(args: readonly string[], others: readonly (readonly string[])[], typed: readonly string[] = []): string[] {
  if (args.includes('--disable-agent') || args.includes('--container-runtime-endpoint')) return [];
  const mine = settings(args);
  const theirs = others.filter((o) => !o.includes('--disable-agent')).map(settings);
  const taken = (k: keyof NetworkSettings, v: string) => theirs.some((t) => t[k] === v);
  const ingress = !args.includes('--disable-ingress');
  const clash = (['bridge', 'clusterCIDR', 'serviceCIDR'] as const).some((k) => taken(k, mine[k]));
  const portClash = ingress && (['httpPort', 'httpsPort'] as const).some((k) => taken(k, mine[k]));
  if (!clash && !portClash) return [];
  for (let n = 1; n <= MAX_SLOT; n++) {
    const slot = slotSettings(n);
    const keys = (Object.keys(FLAGS) as (keyof NetworkSettings)[]).filter((k) => (k === 'httpPort' || k === 'httpsPort' ? portClash : clash));
    if (keys.some((k) => taken(k, slot[k]))) continue;
    const out: string[] = [];
    for (const k of keys) if (!typed.includes(FLAGS[k].flag)) out.push(FLAGS[k].flag, slot[k]);
    return out;
  }
  return [];
}
