const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'etcd', rootDir: __dirname };
