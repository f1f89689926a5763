// Starts `kruleset lsp` (stdio) for .kr files, the .kr text of .feature files and profiles.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("kruleset");
  const [command, ...args] = config.get("command");
  client = new LanguageClient(
    "kruleset",
    "kruleset",
    { command, args },
    {
      documentSelector: [
        { scheme: "file", language: "kr" },
        { scheme: "file", pattern: "**/*.feature" },
        // kruleset profiles (run --profile): the server checks a YAML file
        // that has rulesets: or settings: and leaves any other alone.
        { scheme: "file", language: "yaml" },
      ],
      initializationOptions: { cluster: config.get("cluster") },
    },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
