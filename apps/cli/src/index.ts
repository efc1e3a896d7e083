// @capi/cli: the `capi-inplace` command (bin in package.json); runCli for embedding it.
export { type CliIo, runCli } from './cli';
export { USAGE } from './args';
