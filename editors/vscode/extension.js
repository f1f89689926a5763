// Starts `kruleset lsp` (stdio) for .kr files and the .kr text of .feature files.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("kruleset").get("command");
  client = new LanguageClient(
    "kruleset",
    "kruleset",
    { command, args },
    {
      documentSelector: [
        { scheme: "file", language: "kr" },
        { scheme: "file", pattern: "**/*.feature" },
      ],
    },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
