// VS Code client for the phaselint language server (`phaselint lsp`, LSP over stdio).
//
// The server does all the work (diagnostics, hover, definitions, references,
// rename, completion, code actions, document symbols); this extension only
// finds the binary, starts it for `*.contract.yaml` / `*.contract.yml` files,
// forwards changes of phaselint.toml / pyproject.toml, and restarts it when
// its settings change.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  DocumentSelector,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';

const CLIENT_ID = 'phaselint';
const CLIENT_NAME = 'phaselint';
const INSTALL_HINT =
  'Install it with `cargo install --path crates/cli` from the phaselint repository (so `phaselint` is on PATH), ' +
  'or set "phaselint.path" to the binary.';

const DOCUMENT_SELECTOR: DocumentSelector = [
  { scheme: 'file', language: 'yaml', pattern: '**/*.contract.{yaml,yml}' },
  { scheme: 'file', language: 'json', pattern: '**/.harness/config.json' },
];

let client: LanguageClient | undefined;
let outputChannel: vscode.OutputChannel | undefined;
let configWatcher: vscode.FileSystemWatcher | undefined;
// Start, stop and restart run one after another, never interleaved.
let queue: Promise<void> = Promise.resolve();
// Report a missing binary once per setting value, not on every YAML file opened.
let reportedMissing: string | undefined;

export function activate(context: vscode.ExtensionContext): void {
  outputChannel = vscode.window.createOutputChannel(CLIENT_NAME);
  configWatcher = vscode.workspace.createFileSystemWatcher('**/{phaselint.toml,pyproject.toml}');
  context.subscriptions.push(outputChannel, configWatcher);

  context.subscriptions.push(
    vscode.commands.registerCommand('phaselint.restartServer', () => {
      reportedMissing = undefined;
      return enqueue(async () => {
        await stopClient();
        await startClient(true);
      });
    }),
  );

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('phaselint.path') || event.affectsConfiguration('phaselint.configPath')) {
        reportedMissing = undefined;
        void enqueue(async () => {
          const wasRunning = client !== undefined;
          await stopClient();
          if (wasRunning || hasOpenContract()) {
            await startClient(true);
          }
        });
      }
    }),
  );

  // The extension activates on any YAML file (and on workspaces containing
  // contracts), but the server is only started once a contract is open, so
  // editing unrelated YAML never spawns it or complains about a missing binary.
  context.subscriptions.push(
    vscode.workspace.onDidOpenTextDocument((document) => {
      if (client === undefined && isContract(document)) {
        void enqueue(() => startClient(false));
      }
    }),
  );
  if (hasOpenContract()) {
    void enqueue(() => startClient(false));
  }
}

export function deactivate(): Thenable<void> | undefined {
  return enqueue(stopClient);
}

function enqueue(task: () => Promise<void>): Promise<void> {
  queue = queue.then(task, task).catch((error: unknown) => {
    outputChannel?.appendLine(`[phaselint] ${errorMessage(error)}`);
  });
  return queue;
}

function isContract(document: vscode.TextDocument): boolean {
  return vscode.languages.match(DOCUMENT_SELECTOR, document) > 0;
}

function hasOpenContract(): boolean {
  return vscode.workspace.textDocuments.some(isContract);
}

async function startClient(explicit: boolean): Promise<void> {
  if (client !== undefined) {
    return;
  }
  const settings = vscode.workspace.getConfiguration('phaselint');
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const pathSetting = (settings.get<string>('path') ?? '').trim() || 'phaselint';
  const binary = resolveBinary(pathSetting, folder);
  if (binary === undefined) {
    reportMissing(pathSetting, explicit);
    return;
  }

  const configSetting = (settings.get<string>('configPath') ?? '').trim();
  const configPath = configSetting === '' ? undefined : resolvePath(configSetting, folder);
  if (configPath !== undefined && !fs.existsSync(configPath)) {
    void vscode.window.showWarningMessage(
      `phaselint: the configuration file "${configPath}" (phaselint.configPath) does not exist.`,
    );
  }

  const serverOptions: ServerOptions = {
    command: binary,
    args: ['lsp'],
    transport: TransportKind.stdio,
    options: folder === undefined ? undefined : { cwd: folder },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    synchronize: {
      // The server also registers these watchers itself; forwarding them here
      // covers clients where dynamic registration is unavailable.
      fileEvents: configWatcher,
    },
    initializationOptions: configPath === undefined ? {} : { configPath },
    outputChannel,
    diagnosticCollectionName: CLIENT_ID,
  };

  outputChannel?.appendLine(`[phaselint] starting ${binary} lsp${configPath ? ` (configPath: ${configPath})` : ''}`);
  const newClient = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
  client = newClient;
  try {
    await newClient.start();
  } catch (error) {
    client = undefined;
    try {
      await newClient.dispose();
    } catch {
      // Already stopped.
    }
    const message = errorMessage(error);
    outputChannel?.appendLine(`[phaselint] failed to start ${binary} lsp: ${message}`);
    const choice = await vscode.window.showErrorMessage(
      `phaselint: could not start the language server (${binary} lsp): ${message}. ${INSTALL_HINT}`,
      'Open Settings',
      'Show Output',
    );
    handleChoice(choice);
  }
}

async function stopClient(): Promise<void> {
  const running = client;
  client = undefined;
  if (running === undefined) {
    return;
  }
  try {
    await running.stop();
  } catch (error) {
    outputChannel?.appendLine(`[phaselint] error while stopping the server: ${errorMessage(error)}`);
  }
}

function reportMissing(pathSetting: string, explicit: boolean): void {
  const searched = looksLikePath(pathSetting) ? 'does not exist or is not executable' : 'was not found on PATH';
  outputChannel?.appendLine(`[phaselint] the language server binary "${pathSetting}" ${searched}.`);
  if (!explicit && reportedMissing === pathSetting) {
    return;
  }
  reportedMissing = pathSetting;
  void vscode.window
    .showErrorMessage(`phaselint: the language server binary "${pathSetting}" ${searched}. ${INSTALL_HINT}`, 'Open Settings')
    .then(handleChoice);
}

function handleChoice(choice: string | undefined): void {
  if (choice === 'Open Settings') {
    void vscode.commands.executeCommand('workbench.action.openSettings', 'phaselint.path');
  } else if (choice === 'Show Output') {
    outputChannel?.show(true);
  }
}

function looksLikePath(value: string): boolean {
  return value.includes('/') || (process.platform === 'win32' && value.includes('\\')) || value.startsWith('~');
}

/** Expands `~` and `${workspaceFolder}`, and makes a relative path absolute against the workspace folder. */
function resolvePath(value: string, folder: string | undefined): string {
  let expanded = value;
  if (folder !== undefined) {
    expanded = expanded.split('${workspaceFolder}').join(folder);
  }
  if (expanded === '~') {
    expanded = os.homedir();
  } else if (expanded.startsWith('~/') || expanded.startsWith('~\\')) {
    expanded = path.join(os.homedir(), expanded.slice(2));
  }
  if (!path.isAbsolute(expanded) && folder !== undefined) {
    expanded = path.join(folder, expanded);
  }
  return path.normalize(expanded);
}

/** The executable to run, or undefined when it cannot be found. */
function resolveBinary(setting: string, folder: string | undefined): string | undefined {
  const value = setting.includes('${workspaceFolder}') || looksLikePath(setting) ? resolvePath(setting, folder) : setting;
  if (path.isAbsolute(value)) {
    return candidates(value).find(isExecutableFile);
  }
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => dir !== '');
  for (const dir of dirs) {
    const found = candidates(path.join(dir, value)).find(isExecutableFile);
    if (found !== undefined) {
      return found;
    }
  }
  return undefined;
}

function candidates(file: string): string[] {
  if (process.platform !== 'win32' || path.extname(file) !== '') {
    return [file];
  }
  const extensions = (process.env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter((ext) => ext !== '');
  return [file, ...extensions.map((ext) => file + ext.toLowerCase()), ...extensions.map((ext) => file + ext)];
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) {
      return false;
    }
    if (process.platform !== 'win32') {
      fs.accessSync(file, fs.constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
