-- Run by tests/neovim.rs: headless Neovim opens a contract with the shipped
-- editors/neovim/phaselint.lua setup, waits for the server's diagnostics
-- and writes what it received as JSON.
local repo = vim.env.PHASELINT_REPO
local out = vim.env.PHASELINT_OUT
package.path = repo .. '/editors/neovim/?.lua;' .. package.path

require('phaselint').setup({ cmd = { vim.env.PHASELINT_BIN, 'lsp' } })
vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.PHASELINT_FILE))
local buf = vim.api.nvim_get_current_buf()

local received = vim.wait(30000, function()
  return #vim.diagnostic.get(buf) > 0
end, 50)

local diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  local lsp = (d.user_data or {}).lsp or {}
  table.insert(diagnostics, {
    code = d.code or lsp.code,
    line = d.lnum + 1,
    column = d.col + 1,
    severity = d.severity,
    source = d.source or lsp.source,
    message = d.message,
  })
end
table.sort(diagnostics, function(a, b)
  if a.line ~= b.line then return a.line < b.line end
  return a.column < b.column
end)

local attached = {}
local get = vim.lsp.get_clients or vim.lsp.get_active_clients
for _, client in ipairs(get()) do
  table.insert(attached, client.name)
end

local file = assert(io.open(out, 'w'))
file:write(vim.fn.json_encode({ received = received, clients = attached, diagnostics = diagnostics }))
file:close()
vim.lsp.stop_client(vim.lsp.get_active_clients(), true)
vim.cmd('qa!')
