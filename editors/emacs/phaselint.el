;;; phaselint.el --- phaselint for context contracts, through eglot  -*- lexical-binding: t; -*-

;; Diagnostics, hover, completion, go-to-definition, references, rename,
;; code actions and the outline (imenu) of `*.contract.yaml' files, from
;; `phaselint lsp'.  Needs eglot: built into Emacs 29; for Emacs 28 install
;; it from GNU ELPA (M-x package-install RET eglot) or Debian's elpa-eglot.

;;; Code:

(require 'eglot)

(defgroup phaselint nil
  "phaselint, the linter and language server for context contracts."
  :group 'tools)

(defcustom phaselint-command '("phaselint" "lsp")
  "The command that starts the phaselint language server."
  :type '(repeat string))

(defcustom phaselint-config-path nil
  "A phaselint.toml to use instead of the one found by walking up from each file."
  :type '(choice (const :tag "Discover" nil) file))

;; Contracts are YAML: keep yaml-mode's (or yaml-ts-mode's) highlighting
;; where it is installed, and fall back to plain text editing otherwise.
(defalias 'phaselint--yaml-parent-mode
  (cond ((fboundp 'yaml-ts-mode) 'yaml-ts-mode)
        ((fboundp 'yaml-mode) 'yaml-mode)
        ((require 'yaml-mode nil t) 'yaml-mode)
        (t 'prog-mode)))

;;;###autoload
(define-derived-mode phaselint-contract-mode phaselint--yaml-parent-mode "Contract"
  "Major mode for phaselint context contracts (`*.contract.yaml').")

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.contract\\.ya?ml\\'" . phaselint-contract-mode))

;; Harness configs (`.harness/config.json') are JSON: json-ts-mode or
;; js-json-mode (Emacs 29+), js-mode before.
(defalias 'phaselint--json-parent-mode
  (cond ((fboundp 'json-ts-mode) 'json-ts-mode)
        ((fboundp 'js-json-mode) 'js-json-mode)
        (t 'js-mode)))

;;;###autoload
(define-derived-mode phaselint-harness-mode phaselint--json-parent-mode "Harness"
  "Major mode for harness configs with named checkpoints (`.harness/config.json').")

;;;###autoload
(add-to-list 'auto-mode-alist '("/\\.harness/config\\.json\\'" . phaselint-harness-mode))

(defun phaselint--server-program (_interactive)
  "The server command, with the configuration path if one is set."
  (if phaselint-config-path
      `(,@phaselint-command
        :initializationOptions (:configPath ,(expand-file-name phaselint-config-path)))
    phaselint-command))

(add-to-list 'eglot-server-programs
             '((phaselint-contract-mode phaselint-harness-mode) . phaselint--server-program))

;;;###autoload
(add-hook 'phaselint-contract-mode-hook #'eglot-ensure)
;;;###autoload
(add-hook 'phaselint-harness-mode-hook #'eglot-ensure)

(provide 'phaselint)
;;; phaselint.el ends here
