// A jest environment for tests of native addons (onnxruntime-node): jest runs each test file in
// a VM context of its own, whose typed arrays are not the ones the addon makes, and the addon's
// type checks (instanceof Float32Array) then fail. This one hands the test Node's own.
const { TestEnvironment } = require('jest-environment-node');

const SHARED = ['ArrayBuffer', 'Float32Array', 'Float64Array', 'Int8Array', 'Uint8Array', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array'];

class NativeAddonsEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of SHARED) this.global[name] = globalThis[name];
  }
}

module.exports = NativeAddonsEnvironment;
