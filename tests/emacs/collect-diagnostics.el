;;; collect-diagnostics.el --- run by tests/emacs.rs  -*- lexical-binding: t; -*-
;; Emacs in batch mode opens a contract with the shipped
;; editors/emacs/phaselint.el, lets eglot start `phaselint lsp', waits for
;; the server's diagnostics (through flymake) and writes them as JSON.

(require 'json)
(setq phaselint-command (list (getenv "PHASELINT_BIN") "lsp"))
(find-file (getenv "PHASELINT_FILE"))
;; eglot-ensure starts the server after the current command; batch Emacs
;; runs no command loop, so end "the command" here.
(run-hooks 'post-command-hook)

(defun collect--diagnostics ()
  (when (bound-and-true-p flymake-mode)
    (flymake-diagnostics)))

(let ((deadline (+ (float-time) 30)))
  (while (and (null (collect--diagnostics)) (< (float-time) deadline))
    (accept-process-output nil 0.05)))

(let* ((mode major-mode)
       (server (eglot-current-server))
       (diagnostics
        (mapcar (lambda (d)
                  (save-excursion
                    (goto-char (flymake-diagnostic-beg d))
                    `((line . ,(line-number-at-pos))
                      (column . ,(1+ (current-column)))
                      (type . ,(symbol-name (flymake-diagnostic-type d)))
                      (text . ,(flymake-diagnostic-text d)))))
                (collect--diagnostics))))
  (with-temp-file (getenv "PHASELINT_OUT")
    (insert (json-encode
             `((mode . ,(symbol-name mode))
               (server . ,(if server (eglot--project-nickname server) :json-false))
               (diagnostics . ,(vconcat diagnostics))))))
  (when server (ignore-errors (eglot-shutdown server))))
(kill-emacs 0)
