// The `yaml` package, loaded on first use: it costs ~40 ms of module loading, and most runs (JSON clients,
// start-up) never touch YAML. require() is synchronous and node caches the module, so callers stay sync.
// The package's "node" export is CommonJS, the same file `import 'yaml'` loads.
import { createRequire } from 'node:module';
import type * as YamlModule from 'yaml';

const require = createRequire(import.meta.url);
const load = (): typeof YamlModule => require('yaml') as typeof YamlModule;

/** The parts of the `yaml` API k1s uses, each loading the package when first called. */
export const YAML = {
  parse: ((...a: Parameters<typeof YamlModule.parse>) => load().parse(...a)) as typeof YamlModule.parse,
  parseAllDocuments: ((...a: Parameters<typeof YamlModule.parseAllDocuments>) =>
    load().parseAllDocuments(...a)) as typeof YamlModule.parseAllDocuments,
  stringify: ((...a: Parameters<typeof YamlModule.stringify>) => load().stringify(...a)) as typeof YamlModule.stringify,
};
