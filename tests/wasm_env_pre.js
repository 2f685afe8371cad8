// --pre-js of the unit test binaries under Emscripten (tests/CMakeLists.txt): GoogleTest's sharding
// variables from Node's environment. ctest runs the longest binaries in shards, each shard picking
// its part of the tests from GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX; Emscripten gives a program
// only a fixed default environment, so without this every shard would run every test.
Module['preRun'] = [].concat(Module['preRun'] || [], function () {
  for (const k of ['GTEST_TOTAL_SHARDS', 'GTEST_SHARD_INDEX']) {
    if (typeof process !== 'undefined' && process.env[k] !== undefined) ENV[k] = process.env[k];
  }
});
