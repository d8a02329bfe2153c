export { resolveOptions, parseHttpAddr, DEFAULT_HTTP_ADDR, DEFAULT_PAYLOAD_SIZE_LIMIT, MASTER_KEY_MIN_BYTES,
  type SkeinOptions, type ResolvedOptions, type SkeinEnv } from './options.js';
export { parseByteSize, formatByteSize } from './byte-size.js';
export { parseCliOptions, resolveLaunchOptions, addLaunchOptions, LaunchOptionError, type LaunchConfiguration } from './cli-options.js';
export { BUILD_INFO, readBuildInfo, versionLine, type BuildInfo } from './build-info.js';
