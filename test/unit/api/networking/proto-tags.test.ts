import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { certificatesDefinitions } from '../../../../src/api/certificates/index.js';
import { coreDefinitions } from '../../../../src/api/core/index.js';
import { podResource } from '../../../../src/api/core/pod/resource.js';
import { discoveryDefinitions } from '../../../../src/api/discovery/index.js';
import { metaDefinitions } from '../../../../src/api/meta.js';
import { networkingDefinitions } from '../../../../src/api/networking/index.js';
import { networkingExtraProtoTags } from '../../../../src/api/proto-tags/discovery-storage-certificates.js';
import { missingProtoTags, protoTags } from '../../../../src/api/proto-tags/index.js';
import { storageDefinitions } from '../../../../src/api/storage/index.js';
import { SchemaSet } from '../../../../src/machinery/schema.js';

describe('protobuf field numbers of networking, discovery, storage and certificates types', () => {
  it('cover every field of their definitions', () => {
    const set = new SchemaSet(
      metaDefinitions,
      coreDefinitions,
      podResource.definitions,
      networkingDefinitions,
      discoveryDefinitions,
      storageDefinitions,
      certificatesDefinitions,
    );
    assert.deepEqual(missingProtoTags(set, { ...protoTags, ...networkingExtraProtoTags }), []);
  });
});
