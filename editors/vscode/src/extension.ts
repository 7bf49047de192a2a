// VS Code client for the phaselint language server (`phaselint lsp`, LSP over stdio).
//
// The server does all the work (diagnostics, hover, definitions, references,
// rename, completion, code actions, document symbols); this extension only
// finds the binary (src/resolve.ts: phaselint.path, the active Python
// environment, PATH), starts it for contracts and harness configs, forwards
// changes of phaselint.toml / pyproject.toml, and restarts it when its
// settings or the active Python environment change.

import * as fs from 'fs';
import * as os from 'os';
import * as vscode from 'vscode';
import { PVSC_EXTENSION_ID, PythonExtension } from '@vscode/python-extension';
import {
  DocumentSelector,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';
import {
  INSTALL_HINT,
  NoPythonEnvironment,
  PythonEnvironment,
  Resolution,
  describeTried,
  expandPath,
  looksLikePath,
  resolvePhaselint,
} from './resolve';

const CLIENT_ID = 'phaselint';
const CLIENT_NAME = 'phaselint';

const DOCUMENT_SELECTOR: DocumentSelector = [
  { scheme: 'file', language: 'yaml', pattern: '**/*.contract.{yaml,yml}' },
  { scheme: 'file', language: 'json', pattern: '**/.harness/config.json' },
];

let client: LanguageClient | undefined;
// The binary the running client was started with.
let clientBinary: string | undefined;
let outputChannel: vscode.OutputChannel | undefined;
let configWatcher: vscode.FileSystemWatcher | undefined;
// Start, stop and restart run one after another, never interleaved.
let queue: Promise<void> = Promise.resolve();
// Report a missing binary once per message, not on every contract opened.
let reportedMissing: string | undefined;
// The Python extension's API, once it has been asked for (undefined: not yet).
let pythonApi: Promise<PythonExtension | undefined> | undefined;
let extensionContext: vscode.ExtensionContext | undefined;

export function activate(context: vscode.ExtensionContext): void {
  extensionContext = context;
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
      } else if (event.affectsConfiguration('python.defaultInterpreterPath')) {
        void enqueue(() => refresh('python.defaultInterpreterPath changed'));
      }
    }),
  );

  // Trusting the workspace lets the workspace's phaselint.path and its
  // Python environment count.
  context.subscriptions.push(
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      void enqueue(() => refresh('the workspace is now trusted'));
    }),
  );

  // The Python extension may be installed or enabled while VS Code runs.
  context.subscriptions.push(
    vscode.extensions.onDidChange(() => {
      void enqueue(() => refresh('the installed extensions changed'));
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
  const resolution = await resolveBinary();
  if (!resolution.found) {
    reportMissing(resolution, explicit);
    return;
  }
  const binary = resolution.binary;
  outputChannel?.appendLine(`[phaselint] using ${binary}, ${resolution.how}`);

  const configSetting = (settings.get<string>('configPath') ?? '').trim();
  const configPath = configSetting === '' ? undefined : expandPath(configSetting, folder, os.homedir(), process.platform);
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
  clientBinary = binary;
  try {
    await newClient.start();
  } catch (error) {
    client = undefined;
    clientBinary = undefined;
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
  clientBinary = undefined;
  if (running === undefined) {
    return;
  }
  try {
    await running.stop();
  } catch (error) {
    outputChannel?.appendLine(`[phaselint] error while stopping the server: ${errorMessage(error)}`);
  }
}

/**
 * Starts the server if a contract is open and it is not running, or restarts
 * it if the binary it would now use differs from the running one.
 */
async function refresh(reason: string): Promise<void> {
  if (client === undefined) {
    if (hasOpenContract()) {
      await startClient(false);
    }
    return;
  }
  const resolution = await resolveBinary();
  if (resolution.found && resolution.binary === clientBinary) {
    return;
  }
  outputChannel?.appendLine(`[phaselint] ${reason}: restarting the server`);
  await stopClient();
  await startClient(false);
}

/** Finds the binary: phaselint.path, then the active Python environment, then PATH. */
async function resolveBinary(): Promise<Resolution> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  return resolvePhaselint({
    // In an untrusted workspace VS Code leaves out the workspace's own value
    // of this setting (restrictedConfigurations in package.json).
    configured: vscode.workspace.getConfiguration('phaselint').get<string>('path') ?? '',
    workspaceFolder: folder?.uri.fsPath,
    homeDir: os.homedir(),
    python: await activePythonEnvironment(folder),
    pathEnv: process.env.PATH,
    platform: process.platform,
    isExecutable: isExecutableFile,
  });
}

/**
 * The Python environment to look for phaselint in: the one selected in the
 * Python extension (ms-python.python) when it is installed, otherwise the
 * interpreter in python.defaultInterpreterPath when that is a path. None in
 * an untrusted workspace, where the environment may be the workspace's own
 * `.venv`.
 */
async function activePythonEnvironment(
  folder: vscode.WorkspaceFolder | undefined,
): Promise<PythonEnvironment | NoPythonEnvironment> {
  if (!vscode.workspace.isTrusted) {
    return { skipped: 'because the workspace is not trusted' };
  }
  if (vscode.extensions.getExtension(PVSC_EXTENSION_ID) === undefined) {
    const interpreter = (vscode.workspace.getConfiguration('python', folder).get<string>('defaultInterpreterPath') ?? '').trim();
    if (interpreter !== '' && looksLikePath(interpreter, process.platform)) {
      return {
        label: 'the Python environment of python.defaultInterpreterPath',
        executable: expandPath(interpreter, folder?.uri.fsPath, os.homedir(), process.platform),
      };
    }
    return { skipped: `because the Python extension (${PVSC_EXTENSION_ID}) is not installed` };
  }
  const api = await pythonExtensionApi();
  if (api === undefined) {
    return { skipped: 'because the Python extension did not start (see the phaselint output)' };
  }
  try {
    const active = api.environments.getActiveEnvironmentPath(folder);
    const environment = await api.environments.resolveEnvironment(active);
    if (environment === undefined) {
      return { skipped: `because the selected Python environment (${active.path}) could not be resolved` };
    }
    return {
      label: 'the active Python environment',
      prefix: environment.executable.sysPrefix || environment.environment?.folderUri.fsPath,
      executable: environment.executable.uri?.fsPath,
    };
  } catch (error) {
    outputChannel?.appendLine(`[phaselint] could not get the active Python environment: ${errorMessage(error)}`);
    return { skipped: 'because the Python extension could not tell the active environment (see the phaselint output)' };
  }
}

/**
 * The Python extension's API, activating the extension the first time. Also
 * subscribes to changes of the active environment, which re-resolve the
 * binary.
 */
function pythonExtensionApi(): Promise<PythonExtension | undefined> {
  pythonApi ??= PythonExtension.api().then(
    (api) => {
      extensionContext?.subscriptions.push(
        api.environments.onDidChangeActiveEnvironmentPath((event) => {
          outputChannel?.appendLine(`[phaselint] the active Python environment is now ${event.path}`);
          void enqueue(() => refresh('the active Python environment changed'));
        }),
      );
      return api;
    },
    (error: unknown) => {
      outputChannel?.appendLine(`[phaselint] could not use the Python extension: ${errorMessage(error)}`);
      return undefined;
    },
  );
  return pythonApi;
}

function reportMissing(resolution: Extract<Resolution, { found: false }>, explicit: boolean): void {
  outputChannel?.appendLine('[phaselint] the phaselint binary was not found. Places tried:');
  for (const line of describeTried(resolution.tried)) {
    outputChannel?.appendLine(line);
  }
  if (!explicit && reportedMissing === resolution.message) {
    return;
  }
  reportedMissing = resolution.message;
  void vscode.window.showErrorMessage(resolution.message, 'Open Settings', 'Show Output').then(handleChoice);
}

function handleChoice(choice: string | undefined): void {
  if (choice === 'Open Settings') {
    void vscode.commands.executeCommand('workbench.action.openSettings', 'phaselint.path');
  } else if (choice === 'Show Output') {
    outputChannel?.show(true);
  }
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
