import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { copyAlong } from '../../../../src/machinery/patch/common.js';
import { applyStrategicMergePatch } from '../../../../src/machinery/patch/strategic.js';

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}
import { SchemaSet, s } from '../../../../src/machinery/schema.js';

// Cases adapted from k8s.io/apimachinery/pkg/util/strategicpatch's patch_test.go: the two-way patch applied to the
// original must give the modified object, the three-way patch (what kubectl apply sends) applied to the live
// object must give the result, in exactly that order. The schema mirrors the test type there: lists merged by
// "name", an int list with strategy merge, retainKeys on a map and on a merged list.
const set = new SchemaSet({
  item: s.obj({
    name: s.str(),
    value: s.str(),
    other: s.str(),
    mergingList: s.arr(s.ref('item'), { mergeKey: 'name' }),
    nonMergingList: s.arr(s.ref('item')),
    mergingIntList: s.arr(s.int64(), { strategy: 'merge' }),
    nonMergingIntList: s.arr(s.int64()),
    simpleMap: s.strMap(),
    replacingItem: { ...s.any(), patchStrategy: 'replace' },
    retainKeysMap: s.ref('retainKeysItem', undefined, { patchStrategy: 'retainKeys' }),
    retainKeysMergingList: s.arr(s.ref('item'), { mergeKey: 'name', strategy: 'merge,retainKeys' }),
  }),
  retainKeysItem: s.obj({
    name: s.str(),
    value: s.str(),
    other: s.str(),
    simpleMap: s.strMap(),
    mergingIntList: s.arr(s.int64(), { strategy: 'merge' }),
    mergingList: s.arr(s.ref('item'), { mergeKey: 'name' }),
    nonMergingList: s.arr(s.ref('item')),
  }),
});
const ITEM = s.ref('item');

type Case = [name: string, original: object, patch: object, want: object];

// prettier-ignore
const cases: Case[] = [
  ["delete items in lists of scalars (two-way)", {"mergingIntList":[1,2,3]}, {"$setElementOrder/mergingIntList":[1,2],"$deleteFromPrimitiveList/mergingIntList":[3]}, {"mergingIntList":[1,2]}],
  ["delete items in lists of scalars (three-way)", {"mergingIntList":[1,2,3,4]}, {"$setElementOrder/mergingIntList":[1,2],"$deleteFromPrimitiveList/mergingIntList":[3]}, {"mergingIntList":[1,2,4]}],
  ["add and delete items in lists of scalars (two-way)", {"mergingIntList":[1,2,3]}, {"$setElementOrder/mergingIntList":[1,2,4],"$deleteFromPrimitiveList/mergingIntList":[3],"mergingIntList":[4]}, {"mergingIntList":[1,2,4]}],
  ["add and delete items in lists of scalars (three-way)", {"mergingIntList":[1,2,3,4]}, {"$setElementOrder/mergingIntList":[1,2,4],"$deleteFromPrimitiveList/mergingIntList":[3]}, {"mergingIntList":[1,2,4]}],
  ["merge lists of maps (two-way)", {"mergingList":[{"name":1},{"name":2,"value":2}]}, {"$setElementOrder/mergingList":[{"name":4},{"name":1},{"name":2},{"name":3}],"mergingList":[{"name":4,"value":4},{"name":3,"value":3}]}, {"mergingList":[{"name":4,"value":4},{"name":1},{"name":2,"value":2},{"name":3,"value":3}]}],
  ["merge lists of maps (three-way)", {"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"}]}, {"$setElementOrder/mergingList":[{"name":4},{"name":1},{"name":2},{"name":3}],"mergingList":[{"name":4,"value":4},{"name":3,"value":3}]}, {"mergingList":[{"name":4,"value":4},{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"},{"name":3,"value":3}]}],
  ["add an item that already exists in current object in merging list (two-way)", {"mergingList":[{"name":1,"value":"a"},{"name":2}]}, {"$setElementOrder/mergingList":[{"name":1},{"name":2},{"name":3}],"mergingList":[{"name":3}]}, {"mergingList":[{"name":1,"value":"a"},{"name":2},{"name":3}]}],
  ["add an item that already exists in current object in merging list (three-way)", {"mergingList":[{"name":1,"value":"a","other":"x"},{"name":2},{"name":3}]}, {}, {"mergingList":[{"name":1,"value":"a","other":"x"},{"name":2},{"name":3}]}],
  ["delete map from merging list (two-way)", {"mergingList":[{"name":1},{"name":2}]}, {"$setElementOrder/mergingList":[{"name":2}],"mergingList":[{"name":1,"$patch":"delete"}]}, {"mergingList":[{"name":2}]}],
  ["delete map from merging list (three-way)", {"mergingList":[{"name":1},{"name":2,"other":"b"}]}, {"$setElementOrder/mergingList":[{"name":2}],"mergingList":[{"name":1,"$patch":"delete"}]}, {"mergingList":[{"name":2,"other":"b"}]}],
  ["delete missing map from merging list (two-way)", {"mergingList":[{"name":1},{"name":2}]}, {"$setElementOrder/mergingList":[{"name":2}],"mergingList":[{"name":1,"$patch":"delete"}]}, {"mergingList":[{"name":2}]}],
  ["delete missing map from merging list (three-way)", {"mergingList":[{"name":2,"other":"b"}]}, {"$setElementOrder/mergingList":[{"name":2}],"mergingList":[{"name":1,"$patch":"delete"}]}, {"mergingList":[{"name":2,"other":"b"}]}],
  ["add map and delete map from merging list (two-way)", {"mergingList":[{"name":1},{"name":2}]}, {"$setElementOrder/mergingList":[{"name":2},{"name":3}],"mergingList":[{"name":3},{"name":1,"$patch":"delete"}]}, {"mergingList":[{"name":2},{"name":3}]}],
  ["add map and delete map from merging list (three-way)", {"mergingList":[{"name":1},{"name":2,"other":"b"},{"name":4,"other":"c"}]}, {"$setElementOrder/mergingList":[{"name":2},{"name":3}],"mergingList":[{"name":3},{"name":1,"$patch":"delete"}]}, {"mergingList":[{"name":2,"other":"b"},{"name":4,"other":"c"},{"name":3}]}],
  ["add map and delete map from merging list with conflict (two-way)", {"mergingList":[{"name":1},{"name":2}]}, {"$setElementOrder/mergingList":[{"name":2},{"name":3}],"mergingList":[{"name":3},{"name":1,"$patch":"delete"}]}, {"mergingList":[{"name":2},{"name":3}]}],
  ["add map and delete map from merging list with conflict (three-way)", {"mergingList":[{"name":1,"other":"a"},{"name":4,"other":"c"}]}, {"$setElementOrder/mergingList":[{"name":2},{"name":3}],"mergingList":[{"name":2},{"name":3},{"name":1,"$patch":"delete"}]}, {"mergingList":[{"name":4,"other":"c"},{"name":2},{"name":3}]}],
  ["delete field from map in merging list (two-way)", {"mergingList":[{"name":1,"value":1},{"name":2,"value":2}]}, {"$setElementOrder/mergingList":[{"name":1},{"name":2}],"mergingList":[{"name":1,"value":null}]}, {"mergingList":[{"name":1},{"name":2,"value":2}]}],
  ["delete field from map in merging list (three-way)", {"mergingList":[{"name":1,"value":1,"other":"a"},{"name":2,"value":2,"other":"b"}]}, {"$setElementOrder/mergingList":[{"name":1},{"name":2}],"mergingList":[{"name":1,"value":null}]}, {"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"}]}],
  ["replace non merging list nested in merging list (two-way)", {"mergingList":[{"name":1,"nonMergingList":[{"name":1},{"name":2,"value":2}]},{"name":2}]}, {"$setElementOrder/mergingList":[{"name":1},{"name":2}],"mergingList":[{"name":1,"nonMergingList":[{"name":1,"value":1}]}]}, {"mergingList":[{"name":1,"nonMergingList":[{"name":1,"value":1}]},{"name":2}]}],
  ["replace non merging list nested in merging list (three-way)", {"mergingList":[{"name":1,"other":"a","nonMergingList":[{"name":1},{"name":2,"value":2}]},{"name":2,"other":"b"}]}, {"$setElementOrder/mergingList":[{"name":1},{"name":2}],"mergingList":[{"name":1,"nonMergingList":[{"name":1,"value":1}]}]}, {"mergingList":[{"name":1,"other":"a","nonMergingList":[{"name":1,"value":1}]},{"name":2,"other":"b"}]}],
  ["add field to map in merging list nested in merging list (two-way)", {"mergingList":[{"name":1,"mergingList":[{"name":1},{"name":2,"value":2}]},{"name":2}]}, {"$setElementOrder/mergingList":[{"name":1},{"name":2}],"mergingList":[{"$setElementOrder/mergingList":[{"name":1},{"name":2}],"name":1,"mergingList":[{"name":1,"value":1}]}]}, {"mergingList":[{"name":1,"mergingList":[{"name":1,"value":1},{"name":2,"value":2}]},{"name":2}]}],
  ["add field to map in merging list nested in merging list (three-way)", {"mergingList":[{"name":1,"other":"a","mergingList":[{"name":1},{"name":2,"value":2}]},{"name":2,"other":"b"}]}, {"$setElementOrder/mergingList":[{"name":1},{"name":2}],"mergingList":[{"$setElementOrder/mergingList":[{"name":1},{"name":2}],"name":1,"mergingList":[{"name":1,"value":1}]}]}, {"mergingList":[{"name":1,"other":"a","mergingList":[{"name":1,"value":1},{"name":2,"value":2}]},{"name":2,"other":"b"}]}],
  ["merge lists of scalars (two-way)", {"mergingIntList":[1,2]}, {"$setElementOrder/mergingIntList":[1,2,3],"mergingIntList":[3]}, {"mergingIntList":[1,2,3]}],
  ["merge lists of scalars (three-way)", {"mergingIntList":[1,2,4]}, {"$setElementOrder/mergingIntList":[1,2,3],"mergingIntList":[3]}, {"mergingIntList":[1,2,3,4]}],
  ["add an item in a list of primitives and preserve order (two-way)", {"mergingIntList":[1,2]}, {"$setElementOrder/mergingIntList":[3,1,2],"mergingIntList":[3]}, {"mergingIntList":[3,1,2]}],
  ["add an item in a list of primitives and preserve order (three-way)", {"mergingIntList":[1,4,2]}, {"$setElementOrder/mergingIntList":[3,1,2],"mergingIntList":[3]}, {"mergingIntList":[3,1,4,2]}],
  ["delete an item in a list of primitives and preserve order (two-way)", {"mergingIntList":[1,2,3]}, {"$setElementOrder/mergingIntList":[2,1],"$deleteFromPrimitiveList/mergingIntList":[3]}, {"mergingIntList":[2,1]}],
  ["delete an item in a list of primitives and preserve order (three-way)", {"mergingIntList":[1,2,3]}, {"$setElementOrder/mergingIntList":[2,1],"$deleteFromPrimitiveList/mergingIntList":[3]}, {"mergingIntList":[2,1]}],
  ["add an item in a list and preserve order (two-way)", {"mergingList":[{"name":1},{"name":2,"value":2}]}, {"$setElementOrder/mergingList":[{"name":3},{"name":1},{"name":2}],"mergingList":[{"name":3,"value":3}]}, {"mergingList":[{"name":3,"value":3},{"name":1},{"name":2,"value":2}]}],
  ["add an item in a list and preserve order (three-way)", {"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"}]}, {"$setElementOrder/mergingList":[{"name":3},{"name":1},{"name":2}],"mergingList":[{"name":3,"value":3}]}, {"mergingList":[{"name":3,"value":3},{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"}]}],
  ["add multiple items in a list and preserve order (two-way)", {"mergingList":[{"name":1},{"name":2,"value":2}]}, {"$setElementOrder/mergingList":[{"name":1},{"name":4},{"name":2},{"name":3}],"mergingList":[{"name":4,"value":4},{"name":3,"value":3}]}, {"mergingList":[{"name":1},{"name":4,"value":4},{"name":2,"value":2},{"name":3,"value":3}]}],
  ["add multiple items in a list and preserve order (three-way)", {"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"}]}, {"$setElementOrder/mergingList":[{"name":1},{"name":4},{"name":2},{"name":3}],"mergingList":[{"name":4,"value":4},{"name":3,"value":3}]}, {"mergingList":[{"name":1,"other":"a"},{"name":4,"value":4},{"name":2,"value":2,"other":"b"},{"name":3,"value":3}]}],
  ["delete an item in a list and preserve order (two-way)", {"mergingList":[{"name":1},{"name":3,"value":3},{"name":2,"value":2}]}, {"$setElementOrder/mergingList":[{"name":2},{"name":1}],"mergingList":[{"name":3,"$patch":"delete"}]}, {"mergingList":[{"name":2,"value":2},{"name":1}]}],
  ["delete an item in a list and preserve order (three-way)", {"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"},{"name":3,"value":3}]}, {"$setElementOrder/mergingList":[{"name":2},{"name":1}],"mergingList":[{"name":3,"$patch":"delete"}]}, {"mergingList":[{"name":2,"value":2,"other":"b"},{"name":1,"other":"a"}]}],
  ["change an item in a list and preserve order (two-way)", {"mergingList":[{"name":1},{"name":3,"value":3},{"name":2,"value":2}]}, {"$setElementOrder/mergingList":[{"name":2},{"name":3},{"name":1}],"mergingList":[{"name":3,"value":"x"}]}, {"mergingList":[{"name":2,"value":2},{"name":3,"value":"x"},{"name":1}]}],
  ["change an item in a list and preserve order (three-way)", {"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"},{"name":3,"value":3}]}, {"$setElementOrder/mergingList":[{"name":2},{"name":3},{"name":1}],"mergingList":[{"name":3,"value":"x"}]}, {"mergingList":[{"name":2,"value":2,"other":"b"},{"name":3,"value":"x"},{"name":1,"other":"a"}]}],
  ["add and delete an item in a list and preserve order (two-way)", {"mergingList":[{"name":1},{"name":3,"value":3},{"name":2,"value":2}]}, {"$setElementOrder/mergingList":[{"name":4},{"name":2},{"name":1}],"mergingList":[{"name":4,"value":4},{"name":3,"$patch":"delete"}]}, {"mergingList":[{"name":4,"value":4},{"name":2,"value":2},{"name":1}]}],
  ["add and delete an item in a list and preserve order (three-way)", {"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"},{"name":3,"value":3}]}, {"$setElementOrder/mergingList":[{"name":4},{"name":2},{"name":1}],"mergingList":[{"name":4,"value":4},{"name":3,"$patch":"delete"}]}, {"mergingList":[{"name":4,"value":4},{"name":2,"value":2,"other":"b"},{"name":1,"other":"a"}]}],
  ["set elements order in a list with server-only items (two-way)", {"mergingList":[{"name":1},{"name":3,"value":3},{"name":4,"value":4},{"name":2,"value":2}]}, {"$setElementOrder/mergingList":[{"name":4},{"name":2},{"name":3},{"name":1}]}, {"mergingList":[{"name":4,"value":4},{"name":2,"value":2},{"name":3,"value":3},{"name":1}]}],
  ["set elements order in a list with server-only items (three-way)", {"mergingList":[{"name":1,"other":"a"},{"name":3,"value":3},{"name":4,"value":4},{"name":2,"value":2},{"name":9}]}, {"$setElementOrder/mergingList":[{"name":4},{"name":2},{"name":3},{"name":1}]}, {"mergingList":[{"name":4,"value":4},{"name":2,"value":2},{"name":3,"value":3},{"name":1,"other":"a"},{"name":9}]}],
  ["set elements order in a list with server-only items 2 (two-way)", {"mergingList":[{"name":1},{"name":2,"value":2},{"name":3,"value":3},{"name":4,"value":4}]}, {"$setElementOrder/mergingList":[{"name":2},{"name":1},{"name":4},{"name":3}]}, {"mergingList":[{"name":2,"value":2},{"name":1},{"name":4,"value":4},{"name":3,"value":3}]}],
  ["set elements order in a list with server-only items 2 (three-way)", {"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2},{"name":9},{"name":3,"value":3},{"name":4,"value":4}]}, {"$setElementOrder/mergingList":[{"name":2},{"name":1},{"name":4},{"name":3}]}, {"mergingList":[{"name":2,"value":2},{"name":1,"other":"a"},{"name":9},{"name":4,"value":4},{"name":3,"value":3}]}],
  ["set elements order in a list with server-only items 3 (two-way)", {"mergingList":[{"name":1},{"name":2,"value":2},{"name":3,"value":3},{"name":4,"value":4}]}, {"$setElementOrder/mergingList":[{"name":2},{"name":1},{"name":4},{"name":3}]}, {"mergingList":[{"name":2,"value":2},{"name":1},{"name":4,"value":4},{"name":3,"value":3}]}],
  ["set elements order in a list with server-only items 3 (three-way)", {"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2},{"name":7},{"name":9},{"name":8},{"name":3,"value":3},{"name":4,"value":4}]}, {"$setElementOrder/mergingList":[{"name":2},{"name":1},{"name":4},{"name":3}]}, {"mergingList":[{"name":2,"value":2},{"name":1,"other":"a"},{"name":7},{"name":9},{"name":8},{"name":4,"value":4},{"name":3,"value":3}]}],
  ["add and delete an item in a int list and preserve order (two-way)", {"mergingIntList":[1,3,2]}, {"$setElementOrder/mergingIntList":[4,2,1],"mergingIntList":[4],"$deleteFromPrimitiveList/mergingIntList":[3]}, {"mergingIntList":[4,2,1]}],
  ["add and delete an item in a int list and preserve order (three-way)", {"mergingIntList":[1,2,3]}, {"$setElementOrder/mergingIntList":[4,2,1],"mergingIntList":[4],"$deleteFromPrimitiveList/mergingIntList":[3]}, {"mergingIntList":[4,2,1]}],
  ["set elements order in a int list with server-only items (two-way)", {"mergingIntList":[1,3,4,2]}, {"$setElementOrder/mergingIntList":[4,2,3,1]}, {"mergingIntList":[4,2,3,1]}],
  ["set elements order in a int list with server-only items (three-way)", {"mergingIntList":[1,3,4,2,9]}, {"$setElementOrder/mergingIntList":[4,2,3,1]}, {"mergingIntList":[4,2,3,1,9]}],
  ["set elements order in a int list with server-only items 3 (two-way)", {"mergingIntList":[1,2,3,4]}, {"$setElementOrder/mergingIntList":[2,1,4,3]}, {"mergingIntList":[2,1,4,3]}],
  ["set elements order in a int list with server-only items 3 (three-way)", {"mergingIntList":[1,2,7,9,8,3,4]}, {"$setElementOrder/mergingIntList":[2,1,4,3]}, {"mergingIntList":[2,1,7,9,8,4,3]}],
  ["behavior of set element order for a merging list with duplicate (two-way)", {"mergingList":[{"name":1},{"name":2,"value":"dup1"},{"name":3},{"name":2,"value":"dup2"},{"name":4}]}, {"$setElementOrder/mergingList":[{"name":2},{"name":1},{"name":4},{"name":3},{"name":2}]}, {"mergingList":[{"name":2,"value":"dup1"},{"name":2,"value":"dup2"},{"name":1},{"name":4},{"name":3}]}],
  ["behavior of set element order for a merging list with duplicate (three-way)", {"mergingList":[{"name":1},{"name":2,"value":"dup1"},{"name":3},{"name":2,"value":"dup2"},{"name":4}]}, {"$setElementOrder/mergingList":[{"name":2},{"name":1},{"name":4},{"name":3},{"name":2}]}, {"mergingList":[{"name":2,"value":"dup1"},{"name":2,"value":"dup2"},{"name":1},{"name":4},{"name":3}]}],
  ["behavior of set element order for a merging int list with duplicate (two-way)", {"mergingIntList":[1,2,3,2,4]}, {"$setElementOrder/mergingIntList":[2,1,4,3,2]}, {"mergingIntList":[2,2,1,4,3]}],
  ["behavior of set element order for a merging int list with duplicate (three-way)", {"mergingIntList":[1,2,3,2,4]}, {"$setElementOrder/mergingIntList":[2,1,4,3,2]}, {"mergingIntList":[2,2,1,4,3]}],
  ["retainKeys map should clear defaulted field (two-way)", {}, {"retainKeysMap":{"other":"bar"}}, {"retainKeysMap":{"other":"bar"}}],
  ["retainKeys map should clear defaulted field (three-way)", {"retainKeysMap":{"value":"foo"}}, {"retainKeysMap":{"$retainKeys":["other"],"other":"bar"}}, {"retainKeysMap":{"other":"bar"}}],
  ["retainKeys map adds a field and clear a field (two-way)", {"retainKeysMap":{"name":"foo"}}, {"retainKeysMap":{"$retainKeys":["name","value"],"value":"bar"}}, {"retainKeysMap":{"name":"foo","value":"bar"}}],
  ["retainKeys map adds a field and clear a field (three-way)", {"retainKeysMap":{"name":"foo","other":"a"}}, {"retainKeysMap":{"$retainKeys":["name","value"],"value":"bar"}}, {"retainKeysMap":{"name":"foo","value":"bar"}}],
  ["retainKeys map deletes a field and clears a field (two-way)", {"retainKeysMap":{"name":"foo","value":"bar"}}, {"retainKeysMap":{"$retainKeys":["name"],"value":null}}, {"retainKeysMap":{"name":"foo"}}],
  ["retainKeys map deletes a field and clears a field (three-way)", {"retainKeysMap":{"name":"foo","value":"bar","other":"a"}}, {"retainKeysMap":{"$retainKeys":["name"],"value":null}}, {"retainKeysMap":{"name":"foo"}}],
  ["retainKeys map replaces non-merging list (two-way)", {"retainKeysMap":{"name":"foo","value":"bar","nonMergingList":[{"name":"a"},{"name":"b"}]}}, {"retainKeysMap":{"$retainKeys":["name","nonMergingList","value"],"nonMergingList":[{"name":"a"},{"name":"c"},{"name":"b"}]}}, {"retainKeysMap":{"name":"foo","value":"bar","nonMergingList":[{"name":"a"},{"name":"c"},{"name":"b"}]}}],
  ["retainKeys map replaces non-merging list (three-way)", {"retainKeysMap":{"name":"foo","value":"bar","nonMergingList":[{"name":"a"},{"name":"b"}]}}, {"retainKeysMap":{"$retainKeys":["name","nonMergingList","value"],"nonMergingList":[{"name":"a"},{"name":"c"},{"name":"b"}]}}, {"retainKeysMap":{"name":"foo","value":"bar","nonMergingList":[{"name":"a"},{"name":"c"},{"name":"b"}]}}],
  ["retainKeys map adds an item and deletes an item in nested merging int list (two-way)", {"retainKeysMap":{"name":"foo","mergingIntList":[1,2,3]}}, {"retainKeysMap":{"$retainKeys":["mergingIntList","name"],"mergingIntList":[5],"$deleteFromPrimitiveList/mergingIntList":[2],"$setElementOrder/mergingIntList":[1,3,5]}}, {"retainKeysMap":{"name":"foo","mergingIntList":[1,3,5]}}],
  ["retainKeys map adds an item and deletes an item in nested merging int list (three-way)", {"retainKeysMap":{"name":"foo","mergingIntList":[1,2,3,4]}}, {"retainKeysMap":{"$retainKeys":["mergingIntList","name"],"mergingIntList":[5],"$deleteFromPrimitiveList/mergingIntList":[2],"$setElementOrder/mergingIntList":[1,3,5]}}, {"retainKeysMap":{"name":"foo","mergingIntList":[1,3,5,4]}}],
  ["retainKeys map changes an item in nested merging list (two-way)", {"retainKeysMap":{"name":"foo","mergingList":[{"name":"a"},{"name":"b","value":"foo"}]}}, {"retainKeysMap":{"$retainKeys":["mergingList","name"],"$setElementOrder/mergingList":[{"name":"a"},{"name":"b"}],"mergingList":[{"name":"b","value":"bar"}]}}, {"retainKeysMap":{"name":"foo","mergingList":[{"name":"a"},{"name":"b","value":"bar"}]}}],
  ["retainKeys map changes an item in nested merging list (three-way)", {"retainKeysMap":{"name":"foo","mergingList":[{"name":"a"},{"name":"b","value":"foo"},{"name":"x"}]}}, {"retainKeysMap":{"$retainKeys":["mergingList","name"],"$setElementOrder/mergingList":[{"name":"a"},{"name":"b"}],"mergingList":[{"name":"b","value":"bar"}]}}, {"retainKeysMap":{"name":"foo","mergingList":[{"name":"a"},{"name":"b","value":"bar"},{"name":"x"}]}}],
  ["retainKeys map deletes an item in nested merging list (two-way)", {"retainKeysMap":{"name":"foo","mergingList":[{"name":"a"},{"name":"b"}]}}, {"retainKeysMap":{"$retainKeys":["mergingList","name"],"$setElementOrder/mergingList":[{"name":"a"}],"mergingList":[{"name":"b","$patch":"delete"}]}}, {"retainKeysMap":{"name":"foo","mergingList":[{"name":"a"}]}}],
  ["retainKeys map deletes an item in nested merging list (three-way)", {"retainKeysMap":{"name":"foo","mergingList":[{"name":"a"},{"name":"b"},{"name":"x"}]}}, {"retainKeysMap":{"$retainKeys":["mergingList","name"],"$setElementOrder/mergingList":[{"name":"a"}],"mergingList":[{"name":"b","$patch":"delete"}]}}, {"retainKeysMap":{"name":"foo","mergingList":[{"name":"a"},{"name":"x"}]}}],
  ["retainKeys list of maps clears a field (two-way)", {"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"a"}]}, {}, {"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"a"}]}],
  ["retainKeys list of maps clears a field (three-way)", {"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"a","other":"x"}]}, {"$setElementOrder/retainKeysMergingList":[{"name":"bar"},{"name":"foo"}],"retainKeysMergingList":[{"$retainKeys":["name","value"],"name":"foo"}]}, {"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"a"}]}],
  ["retainKeys list of maps changes a field and clear a field (two-way)", {"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"old"}]}, {"$setElementOrder/retainKeysMergingList":[{"name":"bar"},{"name":"foo"}],"retainKeysMergingList":[{"$retainKeys":["name","value"],"name":"foo","value":"new"}]}, {"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"new"}]}],
  ["retainKeys list of maps changes a field and clear a field (three-way)", {"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"old","other":"x"}]}, {"$setElementOrder/retainKeysMergingList":[{"name":"bar"},{"name":"foo"}],"retainKeysMergingList":[{"$retainKeys":["name","value"],"name":"foo","value":"new"}]}, {"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"new"}]}],
  ["retainKeys list of maps adds a field and clear a field (two-way)", {"retainKeysMergingList":[{"name":"bar"},{"name":"foo"}]}, {"$setElementOrder/retainKeysMergingList":[{"name":"bar"},{"name":"foo"}],"retainKeysMergingList":[{"$retainKeys":["name","value"],"name":"foo","value":"a"}]}, {"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"a"}]}],
  ["retainKeys list of maps adds a field and clear a field (three-way)", {"retainKeysMergingList":[{"name":"bar"},{"name":"foo","other":"x"}]}, {"$setElementOrder/retainKeysMergingList":[{"name":"bar"},{"name":"foo"}],"retainKeysMergingList":[{"$retainKeys":["name","value"],"name":"foo","value":"a"}]}, {"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"a"}]}],
  ["retainKeys list of maps deletes a field and clear a field (two-way)", {"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"a"}]}, {"$setElementOrder/retainKeysMergingList":[{"name":"bar"},{"name":"foo"}],"retainKeysMergingList":[{"$retainKeys":["name"],"name":"foo","value":null}]}, {"retainKeysMergingList":[{"name":"bar"},{"name":"foo"}]}],
  ["retainKeys list of maps deletes a field and clear a field (three-way)", {"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"a","other":"x"}]}, {"$setElementOrder/retainKeysMergingList":[{"name":"bar"},{"name":"foo"}],"retainKeysMergingList":[{"$retainKeys":["name"],"name":"foo","value":null}]}, {"retainKeysMergingList":[{"name":"bar"},{"name":"foo"}]}],
  ["delete and reorder in one list, reorder in another (two-way)", {"mergingList":[{"name":"a","value":"a"},{"name":"b","value":"b"}],"retainKeysMergingList":[{"name":"c","value":"c"},{"name":"d","value":"d"}]}, {"$setElementOrder/mergingList":[{"name":"b"}],"$setElementOrder/retainKeysMergingList":[{"name":"d"},{"name":"c"}],"mergingList":[{"$patch":"delete","name":"a"}]}, {"mergingList":[{"name":"b","value":"b"}],"retainKeysMergingList":[{"name":"d","value":"d"},{"name":"c","value":"c"}]}],
  ["delete and reorder in one list, reorder in another (three-way)", {"mergingList":[{"name":"a","value":"a"},{"name":"b","value":"b"}],"retainKeysMergingList":[{"name":"c","value":"c"},{"name":"d","value":"d"}]}, {"$setElementOrder/mergingList":[{"name":"b"}],"$setElementOrder/retainKeysMergingList":[{"name":"d"},{"name":"c"}],"mergingList":[{"$patch":"delete","name":"a"}]}, {"mergingList":[{"name":"b","value":"b"}],"retainKeysMergingList":[{"name":"d","value":"d"},{"name":"c","value":"c"}]}],
];

// Hand-written cases for directives the generated patches above do not use.
// prettier-ignore
const custom: Case[] = [
  ['unique scalars when merging lists', { mergingIntList: [1, 2] }, { mergingIntList: [2, 3] }, { mergingIntList: [1, 2, 3] }],
  ['delete map from nested map', { simpleMap: { key1: '1', key2: '1' } }, { simpleMap: { $patch: 'delete' } }, { simpleMap: {} }],
  ['delete all items from merging list', { mergingList: [{ name: '1' }, { name: '2' }] }, { mergingList: [{ $patch: 'replace' }] }, { mergingList: [] }],
  ['merge empty merging lists', { mergingList: [] }, { mergingList: [] }, { mergingList: [] }],
  ['delete all keys from map', { name: '1', value: '1' }, { $patch: 'replace' }, {}],
  ['add key and delete all keys from map', { name: '1', value: '1' }, { other: 'a', $patch: 'replace' }, { other: 'a' }],
  ['delete all duplicate entries in a merging list', { mergingList: [{ name: '1' }, { name: '1' }, { name: '2', value: 'a' }, { name: '3' }, { name: '3' }] }, { mergingList: [{ name: '1', $patch: 'delete' }, { name: '3', $patch: 'delete' }] }, { mergingList: [{ name: '2', value: 'a' }] }],
  ['retainKeys map merges an empty map', { retainKeysMap: { name: 'foo', value: 'a' } }, { retainKeysMap: {} }, { retainKeysMap: { name: 'foo', value: 'a' } }],
  ['retainKeys list deletes a field without a retainKeys directive', { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'a' }] }, { retainKeysMergingList: [{ name: 'foo', value: null }] }, { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo' }] }],
  ['patch order wins in a merging list', { mergingList: [{ name: '1' }, { name: '2', value: 'b' }, { name: '3' }] }, { mergingList: [{ name: '3', value: 'c' }, { name: '1', value: 'a' }, { name: '2', other: 'x' }] }, { mergingList: [{ name: '3', value: 'c' }, { name: '1', value: 'a' }, { name: '2', value: 'b', other: 'x' }] }],
  ['patch order interleaves with server-only items', { mergingList: [{ name: '1' }, { name: '2', value: 'b' }, { name: '3' }] }, { mergingList: [{ name: '3', value: 'c' }, { name: '1', value: 'a' }] }, { mergingList: [{ name: '2', value: 'b' }, { name: '3', value: 'c' }, { name: '1', value: 'a' }] }],
  ['patch order wins in a merging int list', { mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1] }, { mergingIntList: [2, 3, 1] }],
  ['$setElementOrder may name items that are not in the list', { mergingList: [{ name: '1' }, { name: '3' }] }, { '$setElementOrder/mergingList': [{ name: '3' }, { name: '2' }, { name: '1' }], mergingList: [{ name: '3', value: '3' }, { name: '1', value: '1' }] }, { mergingList: [{ name: '3', value: '3' }, { name: '1', value: '1' }] }],
  ['$setElementOrder alone reorders an int list', { mergingIntList: [1, 3] }, { '$setElementOrder/mergingIntList': [3, 2, 1] }, { mergingIntList: [3, 1] }],
  ['$deleteFromPrimitiveList of a missing value', { mergingIntList: [1, 2] }, { '$deleteFromPrimitiveList/mergingIntList': [3] }, { mergingIntList: [1, 2] }],
  ['$deleteFromPrimitiveList of a missing list', { other: 'x' }, { '$deleteFromPrimitiveList/mergingIntList': [3] }, { other: 'x' }],
  ['$deleteFromPrimitiveList on a non-merging list', { nonMergingIntList: [1, 2, 3] }, { '$deleteFromPrimitiveList/nonMergingIntList': [2] }, { nonMergingIntList: [1, 3] }],
  ['a replace-strategy field is replaced, not merged', { name: 'x', replacingItem: { Some: 'Generic', Yaml: 'Inside' } }, { replacingItem: { Newly: 'Modified', Yaml: 'Inside', Gone: null } }, { name: 'x', replacingItem: { Newly: 'Modified', Yaml: 'Inside', Gone: null } }],
];

function run(list: Case[]): void {
  for (const [name, original, patch, want] of list) {
    it(name, () => {
      const got = applyStrategicMergePatch(original, patch, ITEM, set);
      // list order matters, object member order does not
      assert.deepEqual(got, want);
      // patching a copy of only what the patch reaches (a status patch's way) gives the same, leaving the rest shared
      const frozen = deepFreeze(structuredClone(original)) as Record<string, unknown>;
      assert.deepEqual(applyStrategicMergePatch(copyAlong(frozen, patch as Record<string, unknown>), patch, ITEM, set, { originalOwned: true }), want);
    });
  }
}

describe('strategic merge patch: kube strategicpatch cases', () => run(cases));
describe('strategic merge patch: directive cases', () => run(custom));

describe('strategic merge patch: errors from kube strategicpatch cases', () => {
  it('$setElementOrder must agree with the order of the patch list', () => {
    assert.throws(
      () => applyStrategicMergePatch({ mergingList: [{ name: '1' }, { name: '3' }, { name: '2' }] }, { '$setElementOrder/mergingList': [{ name: '1' }, { name: '2' }, { name: '3' }], mergingList: [{ name: '3', value: '3' }, { name: '1', value: '1' }] }, ITEM, set),
      /doesn't match \$setElementOrder list/,
    );
    assert.throws(
      () => applyStrategicMergePatch({ mergingIntList: [1, 3, 2] }, { '$setElementOrder/mergingIntList': [1, 2, 3], mergingIntList: [3, 1] }, ITEM, set),
      /doesn't match \$setElementOrder list/,
    );
  });

  it('a merging list element needs its merge key', () => {
    assert.throws(
      () => applyStrategicMergePatch({ mergingList: [{ name: '1', value: 'a' }] }, { mergingList: [{ value: 'b' }] }, ITEM, set),
      { code: 500, message: 'map: map[value:b] does not contain declared merge key: name' },
    );
  });
});
