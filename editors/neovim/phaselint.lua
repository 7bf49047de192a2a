-- phaselint.lua: start the phaselint language server (`phaselint lsp`) for
-- context contracts (*.contract.yaml, *.contract.yml) and harness configs
-- (.harness/config.json) with Neovim's built-in LSP client. No plugin is
-- needed.
--
--   require('phaselint').setup()                      -- defaults
--   require('phaselint').setup({ cmd = { '/path/to/phaselint', 'lsp' } })
--
-- Works on Neovim 0.7 (Debian bookworm's package) and later: it uses
-- vim.lsp.start (0.8+) when present and vim.lsp.start_client otherwise,
-- vim.fs.root on 0.10+, vim.fs.find on 0.8/0.9, and a plain directory walk
-- on 0.7.
--
-- Options (all optional):
--   cmd           command and arguments            default { 'phaselint', 'lsp' }
--   patterns      autocmd file patterns            default { '*.contract.yaml', '*.contract.yml',
--                                                            '*/.harness/config.json' }
--   root_markers  files that mark the project root default { 'phaselint.toml', 'pyproject.toml', '.git' }
--                 (the file's own directory when none is found)
--   config_path   a configuration file used instead of the phaselint.toml /
--                 pyproject.toml found by walking up (initializationOptions.configPath)
--   init_options  extra initializationOptions (table)
--   capabilities  client capabilities, e.g. from cmp_nvim_lsp (default: Neovim's)
--   on_attach     function(client, bufnr)
--   name          client name                      default 'phaselint'
--
-- Commands: :PhaselintRestart stops the server(s) and attaches the open
-- contracts again (after editing phaselint.toml on clients that do not watch
-- files, or after rebuilding the binary).

local M = {}

local defaults = {
  name = 'phaselint',
  cmd = { 'phaselint', 'lsp' },
  patterns = { '*.contract.yaml', '*.contract.yml', '*/.harness/config.json' },
  root_markers = { 'phaselint.toml', 'pyproject.toml', '.git' },
  config_path = nil,
  init_options = nil,
  capabilities = nil,
  on_attach = nil,
}

local uv = vim.uv or vim.loop
local options = vim.deepcopy(defaults)
-- Neovim 0.7 only (no vim.lsp.start): root_dir -> client id, to reuse clients.
local legacy_clients = {}
local warned_missing = false

local function notify(message, level)
  vim.schedule(function()
    vim.notify('phaselint: ' .. message, level)
  end)
end

local function all_clients()
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  local mine = {}
  for _, client in ipairs(get()) do
    if client.name == options.name then
      table.insert(mine, client)
    end
  end
  return mine
end

local function dirname(path)
  return vim.fn.fnamemodify(path, ':p:h')
end

local function find_root(bufnr, path)
  local markers = options.root_markers
  local root
  if vim.fn.has('nvim-0.10') == 1 then
    root = vim.fs.root(bufnr, markers)
  elseif vim.fs ~= nil and vim.fs.find ~= nil then
    local found = vim.fs.find(markers, { path = dirname(path), upward = true })[1]
    root = found and vim.fs.dirname(found) or nil
  else
    -- Neovim 0.7: no vim.fs.
    local dir = dirname(path)
    while root == nil do
      for _, marker in ipairs(markers) do
        if uv.fs_stat(dir .. '/' .. marker) ~= nil then
          root = dir
          break
        end
      end
      local parent = vim.fn.fnamemodify(dir, ':h')
      if parent == dir then
        break
      end
      dir = parent
    end
  end
  return root or dirname(path)
end

local function init_options()
  local init = vim.deepcopy(options.init_options or {})
  if options.config_path ~= nil and options.config_path ~= '' then
    init.configPath = vim.fn.fnamemodify(vim.fn.expand(options.config_path), ':p')
  end
  if next(init) == nil then
    return nil
  end
  return init
end

local function binary_available()
  if vim.fn.executable(options.cmd[1]) == 1 then
    return true
  end
  if not warned_missing then
    warned_missing = true
    notify(
      ('cannot run %q (not found on PATH or not executable). Install it with '
        .. '`cargo install --path crates/cli` from the phaselint repository (so `phaselint` '
        .. 'is on PATH), or pass cmd = { "/path/to/phaselint", "lsp" } to '
        .. "require('phaselint').setup()."):format(options.cmd[1]),
      vim.log.levels.ERROR
    )
  end
  return false
end

--- Starts (or reuses) the server for the buffer's project and attaches the buffer.
function M.attach(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  local path = vim.api.nvim_buf_get_name(bufnr)
  if path == '' or vim.bo[bufnr].buftype ~= '' then
    return
  end
  if not binary_available() then
    return
  end
  local root = find_root(bufnr, path)
  local config = {
    name = options.name,
    cmd = options.cmd,
    root_dir = root,
    init_options = init_options(),
    capabilities = options.capabilities,
    on_attach = options.on_attach,
  }
  if vim.lsp.start ~= nil then
    -- Reuses a running client with the same name and root_dir.
    vim.lsp.start(config, { bufnr = bufnr })
    return
  end
  -- Neovim 0.7.
  local id = legacy_clients[root]
  if id == nil or vim.lsp.get_client_by_id(id) == nil then
    id = vim.lsp.start_client(config)
    legacy_clients[root] = id
  end
  if id ~= nil then
    vim.lsp.buf_attach_client(bufnr, id)
  end
end

local function matches(bufnr)
  -- The whole name, as the autocmd matches it: `*/.harness/config.json`
  -- names a folder.
  local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':p')
  for _, pattern in ipairs(options.patterns) do
    if vim.fn.match(name, vim.fn.glob2regpat(pattern)) ~= -1 then
      return true
    end
  end
  return false
end

local function attach_loaded()
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and matches(bufnr) then
      M.attach(bufnr)
    end
  end
end

--- Stops every phaselint client, then attaches the loaded contracts again.
function M.restart()
  local ids = {}
  for _, client in ipairs(all_clients()) do
    table.insert(ids, client.id)
    vim.lsp.stop_client(client.id)
  end
  legacy_clients = {}
  warned_missing = false
  local tries = 0
  local function when_stopped()
    tries = tries + 1
    local alive = {}
    for _, id in ipairs(ids) do
      if vim.lsp.get_client_by_id(id) ~= nil then
        table.insert(alive, id)
      end
    end
    if #alive > 0 and tries < 30 then
      vim.defer_fn(when_stopped, 100)
      return
    end
    for _, id in ipairs(alive) do
      vim.lsp.stop_client(id, true)
    end
    attach_loaded()
  end
  when_stopped()
end

function M.setup(opts)
  options = vim.tbl_extend('force', vim.deepcopy(defaults), opts or {})
  warned_missing = false
  local group = vim.api.nvim_create_augroup('phaselint', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
    group = group,
    pattern = options.patterns,
    desc = 'Start the phaselint language server for context contracts and harness configs',
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  vim.api.nvim_create_user_command('PhaselintRestart', M.restart, {
    desc = 'Restart the phaselint language server',
  })
  -- Contracts already open when setup() runs (e.g. when it is called lazily).
  attach_loaded()
end

return M
