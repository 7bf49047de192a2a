-- Run by tests/neovim.rs: headless Neovim sets up phaselint with the
-- on_attach of editors/neovim/README.md ("Hover and completion on 0.7-0.9"),
-- opens a contract, puts the cursor on its first finding, presses `K` and
-- writes the text of the hover window that opens as JSON.
local repo = vim.env.PHASELINT_REPO
local out = vim.env.PHASELINT_OUT
package.path = repo .. '/editors/neovim/?.lua;' .. package.path

-- The README's snippet, as written there.
local function on_attach(_, bufnr)
  vim.keymap.set('n', 'K', vim.lsp.buf.hover, { buffer = bufnr })
  vim.bo[bufnr].omnifunc = 'v:lua.vim.lsp.omnifunc'
end

require('phaselint').setup({ cmd = { vim.env.PHASELINT_BIN, 'lsp' }, on_attach = on_attach })
vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.PHASELINT_FILE))
local buf = vim.api.nvim_get_current_buf()

vim.wait(30000, function()
  return #vim.diagnostic.get(buf) > 0
end, 50)
local first = vim.diagnostic.get(buf)[1]
local result = { diagnostic = first and first.message or vim.NIL, hover = {}, omnifunc = vim.bo[buf].omnifunc }
if first ~= nil then
  vim.api.nvim_win_set_cursor(0, { first.lnum + 1, first.col })
  vim.api.nvim_feedkeys('K', 'x', false)
  vim.wait(30000, function()
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(win).relative ~= '' then
        result.hover = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
        return true
      end
    end
    return false
  end, 50)
end

local file = assert(io.open(out, 'w'))
file:write(vim.fn.json_encode(result))
file:close()
vim.lsp.stop_client(vim.lsp.get_active_clients(), true)
vim.cmd('qa!')
