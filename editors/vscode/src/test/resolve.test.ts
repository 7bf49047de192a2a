// Unit tests for the binary lookup (src/resolve.ts), run with node's own test
// runner on the compiled JavaScript: `npm test`. No VS Code needed.

import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResolveInput, describeTried, resolvePhaselint, scriptsFolders } from '../resolve';

const POSIX_PATH = '/usr/local/bin:/usr/bin:/bin';
const WINDOWS_PATH = 'C:\\Windows\\system32;"C:\\Program Files\\Tools";C:\\Windows';

/** An input on Linux with nothing installed; `files` are the executables that exist. */
function input(overrides: Partial<ResolveInput>, files: string[] = []): ResolveInput {
  const executables = new Set(files);
  return {
    configured: '',
    workspaceFolder: '/work/project',
    homeDir: '/home/dev',
    python: { skipped: 'because the Python extension (ms-python.python) is not installed' },
    pathEnv: POSIX_PATH,
    platform: 'linux',
    isExecutable: (file) => executables.has(file),
    ...overrides,
  };
}

function found(resolution: ReturnType<typeof resolvePhaselint>): { binary: string; source: string; how: string } {
  assert.ok(resolution.found, `expected a binary, got: ${resolution.found ? '' : resolution.message}`);
  return resolution;
}

function missing(resolution: ReturnType<typeof resolvePhaselint>): string {
  assert.ok(!resolution.found, `expected no binary, got ${resolution.found ? resolution.binary : ''}`);
  return resolution.message;
}

describe('phaselint.path set explicitly', () => {
  it('uses a configured absolute path', () => {
    const result = found(
      resolvePhaselint(input({ configured: '/opt/phaselint/bin/phaselint' }, ['/opt/phaselint/bin/phaselint', '/usr/bin/phaselint'])),
    );
    assert.equal(result.binary, '/opt/phaselint/bin/phaselint');
    assert.equal(result.source, 'setting');
    assert.equal(result.how, 'as phaselint.path ("/opt/phaselint/bin/phaselint") says');
  });

  it('expands ~/ and resolves a relative path against the workspace folder', () => {
    assert.equal(
      found(resolvePhaselint(input({ configured: '~/.cargo/bin/phaselint' }, ['/home/dev/.cargo/bin/phaselint']))).binary,
      '/home/dev/.cargo/bin/phaselint',
    );
    assert.equal(
      found(resolvePhaselint(input({ configured: 'target/debug/phaselint' }, ['/work/project/target/debug/phaselint']))).binary,
      '/work/project/target/debug/phaselint',
    );
    assert.equal(
      found(resolvePhaselint(input({ configured: '${workspaceFolder}/bin/phaselint' }, ['/work/project/bin/phaselint'])))
        .binary,
      '/work/project/bin/phaselint',
    );
  });

  it('names a configured path that does not exist, and does not fall back to PATH or the Python environment', () => {
    const resolution = resolvePhaselint(
      input(
        { configured: '~/bin/phaselint', python: { label: 'the active Python environment', prefix: '/work/project/.venv' } },
        ['/usr/bin/phaselint', '/work/project/.venv/bin/phaselint'],
      ),
    );
    const message = missing(resolution);
    assert.match(message, /"phaselint\.path" is set to "~\/bin\/phaselint"/);
    assert.match(message, /\/home\/dev\/bin\/phaselint does not exist or is not executable/);
    assert.match(message, /pip install phaselint/);
    assert.deepEqual(resolution.tried, [{ description: 'phaselint.path (~/bin/phaselint)', candidates: ['/home/dev/bin/phaselint'] }]);
  });

  it('reports a relative path when no folder is open', () => {
    const message = missing(resolvePhaselint(input({ configured: 'bin/phaselint', workspaceFolder: undefined })));
    assert.match(message, /"bin\/phaselint", a relative path, but no workspace folder is open/);
  });

  it('looks a configured command name up on PATH only', () => {
    const result = found(
      resolvePhaselint(
        input(
          { configured: 'phaselint-nightly', python: { label: 'the active Python environment', prefix: '/venv' } },
          ['/venv/bin/phaselint-nightly', '/usr/bin/phaselint-nightly'],
        ),
      ),
    );
    assert.equal(result.binary, '/usr/bin/phaselint-nightly');
    assert.equal(result.source, 'setting');
    assert.equal(result.how, 'found on PATH as phaselint.path ("phaselint-nightly") says');
    const message = missing(resolvePhaselint(input({ configured: 'phaselint-nightly' })));
    assert.match(message, /"phaselint-nightly", which was not found on PATH \(3 folders\)/);
  });

  it('adds .exe to a configured Windows path without an extension', () => {
    const result = found(
      resolvePhaselint(
        input({ configured: 'C:\\tools\\phaselint', platform: 'win32', pathEnv: WINDOWS_PATH, workspaceFolder: 'C:\\work' }, [
          'C:\\tools\\phaselint.exe',
        ]),
      ),
    );
    assert.equal(result.binary, 'C:\\tools\\phaselint.exe');
  });
});

describe('the active Python environment', () => {
  it('finds phaselint in a POSIX virtual environment (<env>/bin)', () => {
    const result = found(
      resolvePhaselint(
        input(
          {
            python: {
              label: 'the active Python environment',
              prefix: '/work/project/.venv',
              executable: '/work/project/.venv/bin/python',
            },
          },
          ['/work/project/.venv/bin/phaselint', '/usr/bin/phaselint'],
        ),
      ),
    );
    assert.equal(result.binary, '/work/project/.venv/bin/phaselint');
    assert.equal(result.source, 'python');
    assert.equal(result.how, 'found in the active Python environment (/work/project/.venv)');
  });

  it('finds phaselint.exe in a Windows virtual environment (<env>\\Scripts)', () => {
    const result = found(
      resolvePhaselint(
        input(
          {
            platform: 'win32',
            pathEnv: WINDOWS_PATH,
            workspaceFolder: 'C:\\work\\project',
            python: {
              label: 'the active Python environment',
              prefix: 'C:\\work\\project\\.venv',
              executable: 'C:\\work\\project\\.venv\\Scripts\\python.exe',
            },
          },
          ['C:\\work\\project\\.venv\\Scripts\\phaselint.exe'],
        ),
      ),
    );
    assert.equal(result.binary, 'C:\\work\\project\\.venv\\Scripts\\phaselint.exe');
    assert.equal(result.source, 'python');
  });

  it('finds phaselint next to an interpreter given without a prefix (python.defaultInterpreterPath)', () => {
    const result = found(
      resolvePhaselint(
        input(
          { python: { label: 'the Python environment of python.defaultInterpreterPath', executable: '/opt/env/bin/python3' } },
          ['/opt/env/bin/phaselint'],
        ),
      ),
    );
    assert.equal(result.binary, '/opt/env/bin/phaselint');
  });

  it('says so when the environment has no known location', () => {
    const message = missing(resolvePhaselint(input({ python: { label: 'the active Python environment' } })));
    assert.match(message, /no Python environment was searched, because the location of the active Python environment is unknown/);
  });

  it('knows where pip puts scripts on each platform', () => {
    assert.deepEqual(scriptsFolders({ label: 'env', prefix: '/venv', executable: '/venv/bin/python' }, 'darwin'), ['/venv/bin']);
    assert.deepEqual(
      scriptsFolders({ label: 'env', prefix: 'C:\\venv', executable: 'C:\\venv\\Scripts\\python.exe' }, 'win32'),
      ['C:\\venv\\Scripts'],
    );
    // A conda environment or a base install on Windows: python.exe is in the prefix.
    assert.deepEqual(
      scriptsFolders({ label: 'env', prefix: 'C:\\conda\\envs\\x', executable: 'C:\\conda\\envs\\x\\python.exe' }, 'win32'),
      ['C:\\conda\\envs\\x\\Scripts', 'C:\\conda\\envs\\x'],
    );
  });

  it('prefers the Python environment over PATH when phaselint.path is the old default "phaselint"', () => {
    const result = found(
      resolvePhaselint(
        input({ configured: 'phaselint', python: { label: 'the active Python environment', prefix: '/venv' } }, [
          '/venv/bin/phaselint',
          '/usr/bin/phaselint',
        ]),
      ),
    );
    assert.equal(result.binary, '/venv/bin/phaselint');
  });
});

describe('PATH', () => {
  it('finds phaselint on PATH when the environment has none', () => {
    const result = found(
      resolvePhaselint(
        input({ python: { label: 'the active Python environment', prefix: '/venv' } }, ['/usr/bin/phaselint', '/bin/phaselint']),
      ),
    );
    assert.equal(result.binary, '/usr/bin/phaselint');
    assert.equal(result.source, 'path');
    assert.equal(result.how, 'found on PATH');
  });

  it('finds phaselint.exe on a Windows PATH with quoted entries', () => {
    const result = found(
      resolvePhaselint(
        input({ platform: 'win32', pathEnv: WINDOWS_PATH, workspaceFolder: 'C:\\work' }, ['C:\\Program Files\\Tools\\phaselint.exe']),
      ),
    );
    assert.equal(result.binary, 'C:\\Program Files\\Tools\\phaselint.exe');
  });

  it('ignores relative PATH entries, which would point into the workspace', () => {
    const resolution = resolvePhaselint(input({ pathEnv: '.:bin:/usr/bin' }, ['/work/project/phaselint', 'bin/phaselint']));
    assert.match(missing(resolution), /not found on PATH \(1 folder\)/);
  });
});

describe('nothing found', () => {
  it('lists every place tried and says how to install phaselint', () => {
    const resolution = resolvePhaselint(
      input({
        python: {
          label: 'the active Python environment',
          prefix: '/work/project/.venv',
          executable: '/work/project/.venv/bin/python',
        },
      }),
    );
    const message = missing(resolution);
    assert.equal(
      message,
      'phaselint: the phaselint binary was not found in the active Python environment (/work/project/.venv/bin) ' +
        'or on PATH (3 folders). Install it into the project\'s Python environment with "pip install phaselint" ' +
        '(until it is published: "pip install ." in a phaselint checkout), ' +
        'or from a phaselint checkout with "cargo install --locked --path crates/cli", ' +
        'or set "phaselint.path" to the binary. The places tried are listed in the phaselint output.',
    );
    assert.deepEqual(describeTried(resolution.tried), [
      '  phaselint.path: not set, so looking in the Python environment, then on PATH',
      '  the active Python environment (/work/project/.venv)',
      '    /work/project/.venv/bin/phaselint',
      '  PATH (3 folders)',
      '    /usr/local/bin/phaselint',
      '    /usr/bin/phaselint',
      '    /bin/phaselint',
    ]);
  });

  it('says why no Python environment was searched', () => {
    const resolution = resolvePhaselint(input({ pathEnv: '' }));
    const message = missing(resolution);
    assert.match(
      message,
      /^phaselint: the phaselint binary was not found on PATH \(empty\); no Python environment was searched, because the Python extension \(ms-python\.python\) is not installed\. /,
    );
    assert.match(message, /pip install phaselint/);
    assert.match(message, /cargo install --locked --path crates\/cli/);
    assert.match(message, /"phaselint\.path"/);
    assert.deepEqual(describeTried(resolution.tried), [
      '  phaselint.path: not set, so looking in the Python environment, then on PATH',
      '  Python environment: not searched, because the Python extension (ms-python.python) is not installed',
      '  PATH (empty)',
    ]);
  });

  it('lists the Windows places', () => {
    const resolution = resolvePhaselint(
      input({
        platform: 'win32',
        pathEnv: WINDOWS_PATH,
        workspaceFolder: 'C:\\work',
        python: { label: 'the active Python environment', prefix: 'C:\\work\\.venv', executable: 'C:\\work\\.venv\\Scripts\\python.exe' },
      }),
    );
    assert.match(missing(resolution), /not found in the active Python environment \(C:\\work\\\.venv\\Scripts\) or on PATH \(3 folders\)\./);
    assert.deepEqual(
      resolution.tried.flatMap((place) => place.candidates),
      [
        'C:\\work\\.venv\\Scripts\\phaselint.exe',
        'C:\\Windows\\system32\\phaselint.exe',
        'C:\\Program Files\\Tools\\phaselint.exe',
        'C:\\Windows\\phaselint.exe',
      ],
    );
  });
});
