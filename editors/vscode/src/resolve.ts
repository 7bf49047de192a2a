// Finds the `phaselint` binary the extension runs as `phaselint lsp`.
//
// Pure: everything it needs from VS Code, the Python extension, the process
// and the file system comes in as `ResolveInput`, so the order and the
// messages are unit-tested with plain node (src/test/resolve.test.ts).
//
// Order:
//   1. `phaselint.path`, when the user set it: a path (absolute, `~/...`,
//      `${workspaceFolder}/...` or relative to the workspace folder) or a
//      command name looked up on PATH. A configured binary that is missing
//      is an error; the extension does not quietly run another one.
//   2. The active Python environment's scripts folder, where
//      `pip install phaselint` puts the binary (`<env>/bin/phaselint`,
//      `<env>\Scripts\phaselint.exe`).
//   3. PATH.

import * as path from 'path';

/** The old default of `phaselint.path`; it means the same as an empty value. */
export const DEFAULT_COMMAND = 'phaselint';

const INSTALL =
  'Install it into the project\'s Python environment with "pip install phaselint" ' +
  '(until it is published: "pip install ." in a phaselint checkout), ' +
  'or from a phaselint checkout with "cargo install --locked --path crates/cli"';

export const INSTALL_HINT = `${INSTALL}, or set "phaselint.path" to the binary.`;

/** A Python environment whose scripts folder may hold phaselint. */
export interface PythonEnvironment {
  /** Who chose it, for messages: "the active Python environment". */
  label: string;
  /** `sys.prefix` of the environment, when known. */
  prefix?: string;
  /** The interpreter, when known. */
  executable?: string;
}

/** Why no Python environment was searched, for messages. */
export interface NoPythonEnvironment {
  skipped: string;
}

export interface ResolveInput {
  /** `phaselint.path` as configured; empty (or "phaselint") means automatic. */
  configured: string;
  /** The first workspace folder, for relative paths and `${workspaceFolder}`. */
  workspaceFolder: string | undefined;
  homeDir: string;
  python: PythonEnvironment | NoPythonEnvironment;
  /** The PATH environment variable. */
  pathEnv: string | undefined;
  platform: NodeJS.Platform;
  /** True when `file` is a regular file this process may execute. */
  isExecutable(file: string): boolean;
}

/** One place looked in: a short description and the files checked there. */
export interface Place {
  description: string;
  candidates: string[];
}

export type Source = 'setting' | 'python' | 'path';

export type Resolution =
  | { found: true; binary: string; source: Source; how: string; tried: Place[] }
  | { found: false; message: string; tried: Place[] };

export function resolvePhaselint(input: ResolveInput): Resolution {
  const configured = input.configured.trim();
  if (configured !== '' && configured !== DEFAULT_COMMAND) {
    return resolveConfigured(configured, input);
  }

  const tried: Place[] = [
    { description: 'phaselint.path: not set, so looking in the Python environment, then on PATH', candidates: [] },
  ];

  // Where the "not found" message says it looked, given PATH's description.
  let where: (onPath: string) => string;
  const env = input.python;
  const folders = 'skipped' in env ? [] : scriptsFolders(env, input.platform);
  if ('skipped' in env || folders.length === 0) {
    const reason = 'skipped' in env ? env.skipped : `because the location of ${env.label} is unknown`;
    tried.push({ description: `Python environment: not searched, ${reason}`, candidates: [] });
    where = (onPath) => `on ${onPath}; no Python environment was searched, ${reason}`;
  } else {
    const candidates = folders.flatMap((dir) =>
      executableNames(pathFor(input.platform).join(dir, DEFAULT_COMMAND), input.platform),
    );
    const description = `${env.label} (${env.prefix || env.executable})`;
    tried.push({ description, candidates });
    const binary = candidates.find((file) => input.isExecutable(file));
    if (binary !== undefined) {
      return { found: true, binary, source: 'python', how: `found in ${description}`, tried };
    }
    where = (onPath) => `in ${env.label} (${folders.join(', ')}) or on ${onPath}`;
  }

  const onPath = searchPath(DEFAULT_COMMAND, input);
  tried.push(onPath.place);
  if (onPath.binary !== undefined) {
    return { found: true, binary: onPath.binary, source: 'path', how: 'found on PATH', tried };
  }

  return {
    found: false,
    message:
      `phaselint: the phaselint binary was not found ${where(onPath.place.description)}. ` +
      `${INSTALL_HINT} The places tried are listed in the phaselint output.`,
    tried,
  };
}

function resolveConfigured(configured: string, input: ResolveInput): Resolution {
  const setting = `"phaselint.path" is set to "${configured}"`;
  if (!looksLikePath(configured, input.platform)) {
    const onPath = searchPath(configured, input);
    const tried = [onPath.place];
    if (onPath.binary !== undefined) {
      return { found: true, binary: onPath.binary, source: 'setting', how: `found on PATH as phaselint.path ("${configured}") says`, tried };
    }
    return {
      found: false,
      message:
        `phaselint: ${setting}, which was not found on ${onPath.place.description}. ` +
        `Correct the setting, or clear it to use phaselint from the active Python environment or PATH. ${INSTALL}.`,
      tried,
    };
  }

  const file = expandPath(configured, input.workspaceFolder, input.homeDir, input.platform);
  if (!pathFor(input.platform).isAbsolute(file)) {
    return {
      found: false,
      message: `phaselint: ${setting}, a relative path, but no workspace folder is open to resolve it against. Set it to an absolute path.`,
      tried: [{ description: `phaselint.path (${configured}): relative, and no workspace folder is open`, candidates: [] }],
    };
  }
  const candidates = executableNames(file, input.platform);
  const tried = [{ description: `phaselint.path (${configured})`, candidates }];
  const binary = candidates.find((candidate) => input.isExecutable(candidate));
  if (binary !== undefined) {
    return { found: true, binary, source: 'setting', how: `as phaselint.path ("${configured}") says`, tried };
  }
  return {
    found: false,
    message:
      `phaselint: ${setting}, but ${candidates.join(' or ')} does not exist or is not executable. ` +
      `Correct the setting, or clear it to use phaselint from the active Python environment or PATH. ${INSTALL}.`,
    tried,
  };
}

/** The lines the output channel shows for the places tried. */
export function describeTried(tried: Place[]): string[] {
  return tried.flatMap((place) => [
    `  ${place.description}`,
    ...place.candidates.map((candidate) => `    ${candidate}`),
  ]);
}

function searchPath(command: string, input: ResolveInput): { binary?: string; place: Place } {
  const p = pathFor(input.platform);
  // Relative PATH entries (".") would resolve against the workspace folder,
  // whose contents the user may not trust; they are skipped.
  const folders = unique(
    (input.pathEnv ?? '')
      .split(p.delimiter)
      .map((dir) => (input.platform === 'win32' ? dir.replace(/^"(.*)"$/, '$1') : dir))
      .filter((dir) => dir !== '' && p.isAbsolute(dir)),
  );
  const candidates = folders.flatMap((dir) => executableNames(p.join(dir, command), input.platform));
  const count = folders.length === 0 ? 'empty' : `${folders.length} ${folders.length === 1 ? 'folder' : 'folders'}`;
  const place = { description: `PATH (${count})`, candidates };
  return { binary: candidates.find((file) => input.isExecutable(file)), place };
}

/**
 * The folders pip installs scripts into for an environment: `<prefix>/bin` on
 * POSIX, `<prefix>\Scripts` on Windows, and the interpreter's own folder
 * (which is that folder in a virtual environment). The interpreter path is
 * not followed through symlinks: a venv's `bin/python` links to the base
 * interpreter, whose folder is not the venv's.
 */
export function scriptsFolders(env: PythonEnvironment, platform: NodeJS.Platform): string[] {
  const p = pathFor(platform);
  const folders: string[] = [];
  if (env.prefix) {
    folders.push(p.join(env.prefix, platform === 'win32' ? 'Scripts' : 'bin'));
  }
  if (env.executable) {
    const dir = p.dirname(env.executable);
    folders.push(dir);
    // A Windows base or conda interpreter sits in the prefix itself.
    if (platform === 'win32' && p.basename(dir).toLowerCase() !== 'scripts') {
      folders.push(p.join(dir, 'Scripts'));
    }
  }
  return unique(folders.map((dir) => p.normalize(dir)), platform === 'win32');
}

/**
 * The file names to try for an executable. On Windows a name without an
 * extension gets `.exe`: `child_process.spawn` (without a shell) runs `.exe`
 * files but not `.cmd` or `.bat` wrappers.
 */
function executableNames(file: string, platform: NodeJS.Platform): string[] {
  if (platform !== 'win32' || path.win32.extname(file) !== '') {
    return [file];
  }
  return [`${file}.exe`];
}

export function looksLikePath(value: string, platform: NodeJS.Platform): boolean {
  return (
    value.includes('/') ||
    (platform === 'win32' && value.includes('\\')) ||
    value.startsWith('~') ||
    value.includes('${workspaceFolder}')
  );
}

/** Expands `~` and `${workspaceFolder}`, and makes a relative path absolute against the workspace folder. */
export function expandPath(
  value: string,
  folder: string | undefined,
  homeDir: string,
  platform: NodeJS.Platform,
): string {
  const p = pathFor(platform);
  let expanded = value;
  if (folder !== undefined) {
    expanded = expanded.split('${workspaceFolder}').join(folder);
  }
  if (expanded === '~') {
    expanded = homeDir;
  } else if (expanded.startsWith('~/') || (platform === 'win32' && expanded.startsWith('~\\'))) {
    expanded = p.join(homeDir, expanded.slice(2));
  }
  if (!p.isAbsolute(expanded)) {
    if (folder === undefined) {
      return expanded;
    }
    expanded = p.join(folder, expanded);
  }
  return p.normalize(expanded);
}

function pathFor(platform: NodeJS.Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

function unique(values: string[], ignoreCase = false): string[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = ignoreCase ? value.toLowerCase() : value;
    if (seen.has(key)) {
      return false;
    }
    seen.add(key);
    return true;
  });
}
