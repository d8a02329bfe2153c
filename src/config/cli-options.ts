// Launch options -> SkeinOptions, with Meilisearch's precedence: command-line flag > environment
// variable > config file (TOML, --config-file-path / MEILI_CONFIG_FILE_PATH, ./config.toml when it
// exists) > default. commander parses the command line and prints the help; the values of every
// source go through the same parsers (launch-options.ts), so a bad value reads alike wherever it came from.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { parse as parseToml } from 'smol-toml';
import {
  CONFIG_FILE_OPTION, InvalidValue, LAUNCH_OPTIONS, configKey, isSet, parseValue, valueName, type LaunchOption,
} from './launch-options.js';
import type { SkeinOptions } from './options.js';

/** A launch option that cannot be used: the CLI prints the message and exits with code 2, as clap does. */
export class LaunchOptionError extends Error {}

export interface LaunchConfiguration {
  options: SkeinOptions;
  /** One line each: options accepted without effect, unknown MEILI_* variables. */
  warnings: string[];
  /** The config file read, or null. */
  configFile: string | null;
}

/** The commander options declared for the launch options, in table order. */
export interface DeclaredOptions {
  configFile: Option;
  options: Array<{ spec: LaunchOption; option: Option }>;
}

function helpText(description: string, env: string, defaultText: string | undefined): string {
  return `${description} [env: ${env}]${defaultText === undefined ? '' : ` [default: ${defaultText}]`}`;
}

/** Declares every launch option on `command` (values are read by resolveLaunchOptions, not by commander). */
export function addLaunchOptions(command: Command): DeclaredOptions {
  const configFile = new Option(`--${CONFIG_FILE_OPTION.flag} <PATH>`,
    helpText('TOML configuration file (keys: the long options in snake_case)', CONFIG_FILE_OPTION.env, CONFIG_FILE_OPTION.defaultText))
    .helpGroup('Options:');
  command.addOption(configFile);
  const options = LAUNCH_OPTIONS.map((spec) => {
    const flags = spec.kind === 'flag' ? `--${spec.flag}`
      : spec.kind === 'scheduleSnapshot' ? `--${spec.flag} [${valueName(spec)}]`
        : `--${spec.flag} <${valueName(spec)}>`;
    const description = spec.noEffect === undefined ? spec.description : `${spec.description} (no effect: ${spec.noEffect})`;
    const option = new Option(flags, helpText(description, spec.env, spec.defaultText)).helpGroup(`${spec.group}:`);
    command.addOption(option);
    return { spec, option };
  });
  return { configFile, options };
}

/** The option's value given on the command line, or undefined. `--no-analytics` reads as true. */
function commandLineValue(command: Command, option: Option): unknown {
  const name = option.attributeName();
  if (command.getOptionValueSource(name) !== 'cli') return undefined;
  const value = command.getOptionValue(name);
  return option.negate ? true : value;
}

function quote(raw: unknown): string {
  return typeof raw === 'string' ? `'${raw}'` : JSON.stringify(raw) ?? String(raw);
}

/** Reads the config file: the one named by flag or MEILI_CONFIG_FILE_PATH (must exist), else ./config.toml if present. */
function readConfigFile(command: Command, declared: DeclaredOptions, env: NodeJS.ProcessEnv, cwd: string): { path: string; values: Record<string, unknown> } | null {
  const given = (commandLineValue(command, declared.configFile) as string | undefined) ?? (env[CONFIG_FILE_OPTION.env] || undefined);
  const path = resolve(cwd, given ?? CONFIG_FILE_OPTION.defaultText);
  if (given === undefined && !existsSync(path)) return null;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new LaunchOptionError(`error: unable to open or read the "${given ?? path}" configuration file: ${(cause as Error).message}`);
  }
  let values: Record<string, unknown>;
  try {
    values = parseToml(text) as Record<string, unknown>;
  } catch (cause) {
    const { line, column } = cause as { line?: number; column?: number };
    const at = line === undefined ? '' : ` (line ${line}, column ${column})`;
    throw new LaunchOptionError(`error: the configuration file ${path} is not valid TOML${at}: ${(cause as Error).message.split('\n')[0]}`);
  }
  const known = new Set(LAUNCH_OPTIONS.map(configKey));
  for (const key of Object.keys(values)) {
    if (key === configKey(CONFIG_FILE_OPTION)) {
      throw new LaunchOptionError(`error: \`${key}\` is not supported in the configuration file ${path}`);
    }
    if (!known.has(key)) {
      const suggestion = closest(key, [...known]);
      throw new LaunchOptionError(`error: unknown key \`${key}\` in the configuration file ${path}`
        + (suggestion === null ? '' : ` (did you mean \`${suggestion}\`?)`)
        + '; its keys are the long options in snake_case (`skein --help`)');
    }
  }
  return { path, values };
}

/**
 * The SkeinOptions of a parsed command line, the environment and the config file. Throws
 * LaunchOptionError (message starts with "error:") on a bad value, an unknown config key or
 * options that do not go together.
 */
export function resolveLaunchOptions(command: Command, declared: DeclaredOptions, env: NodeJS.ProcessEnv, cwd: string): LaunchConfiguration {
  const file = readConfigFile(command, declared, env, cwd);
  const options: SkeinOptions = {};
  const warnings: string[] = [];
  const given = new Set<string>();
  for (const { spec, option } of declared.options) {
    const cli = commandLineValue(command, option);
    const fromEnv = env[spec.env] === '' ? undefined : env[spec.env];
    const fromFile = file?.values[configKey(spec)];
    const [raw, source] = cli !== undefined ? [cli, 'cli' as const]
      : fromEnv !== undefined ? [fromEnv, 'env' as const]
        : fromFile !== undefined ? [fromFile, 'file' as const] : [undefined, null];
    if (source === null) continue;
    let value: unknown;
    try {
      value = parseValue(spec, raw, source);
    } catch (cause) {
      if (!(cause instanceof InvalidValue)) throw cause;
      const where = source === 'cli' ? `'--${spec.flag} <${valueName(spec)}>'`
        : source === 'env' ? `'--${spec.flag} <${valueName(spec)}>' from the ${spec.env} environment variable`
          : `\`${configKey(spec)}\` in the configuration file ${file!.path}`;
      throw new LaunchOptionError(`error: invalid value ${quote(raw)} for ${where}: ${cause.message}`);
    }
    if (isSet(spec, value)) given.add(spec.flag);
    if (spec.apply) spec.apply(options, value);
    else if (isSet(spec, value)) {
      const origin = source === 'cli' ? '' : source === 'env' ? ` (from ${spec.env})` : ` (from ${configKey(spec)} in ${file!.path})`;
      warnings.push(`--${spec.flag}${origin} has no effect: ${spec.noEffect}`);
    }
  }
  requireTogether(given, 'ignore-missing-dump', 'import-dump');
  requireTogether(given, 'ignore-dump-if-db-exists', 'import-dump');
  requireTogether(given, 'ignore-missing-snapshot', 'import-snapshot');
  requireTogether(given, 'ignore-snapshot-if-db-exists', 'import-snapshot');
  if (given.has('import-dump') && given.has('import-snapshot')) {
    throw new LaunchOptionError("error: the argument '--import-dump <PATH>' cannot be used with '--import-snapshot <PATH>'");
  }
  warnings.push(...unknownVariableWarnings(env));
  return { options, warnings, configFile: file?.path ?? null };
}

function requireTogether(given: Set<string>, flag: string, required: string): void {
  if (given.has(flag) && !given.has(required)) {
    throw new LaunchOptionError(`error: --${flag} requires --${required} <PATH>, which was not provided`);
  }
}

/** One warning per MEILI_* variable that names no option (a typo would otherwise go unnoticed). */
function unknownVariableWarnings(env: NodeJS.ProcessEnv): string[] {
  const known = [CONFIG_FILE_OPTION.env, ...LAUNCH_OPTIONS.map((spec) => spec.env)];
  const knownSet = new Set(known);
  return Object.keys(env)
    .filter((name) => name.startsWith('MEILI_') && !knownSet.has(name))
    .sort()
    .map((name) => {
      const suggestion = closest(name, known);
      return `unknown environment variable ${name} is ignored${suggestion === null ? '' : ` (did you mean ${suggestion}?)`}`;
    });
}

/** The candidate within a few edits of `word`, if any. */
function closest(word: string, candidates: string[]): string | null {
  let best: string | null = null;
  let bestDistance = Math.max(2, Math.floor(word.length / 4)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Parses argv (without node and script) the way the `skein` command does, for tests and embedders.
 * Throws CommanderError on an unknown flag or a missing value, LaunchOptionError on a bad value.
 */
export function parseCliOptions(argv: string[], env: NodeJS.ProcessEnv, cwd = process.cwd()): LaunchConfiguration {
  const command = new Command('skein').exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  const declared = addLaunchOptions(command);
  command.parse(argv, { from: 'user' });
  return resolveLaunchOptions(command, declared, env, cwd);
}

export { CommanderError };
