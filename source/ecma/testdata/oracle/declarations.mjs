// Prints the declarations TypeScript's own parser finds in each file named on stdin: one line
// per file, its path and the sorted, distinct qualified names of its module-level functions,
// classes, interfaces, type aliases, enums and variables (through namespaces and `declare`
// blocks), its classes' methods, constructors, accessors and function-valued properties, and
// its interfaces' members, tab-separated; an export of a name as the default (export default
// x, export = x) is the name "default", as DocForge records it.
import fs from 'node:fs';
import readline from 'node:readline';
import ts from 'typescript';

const clean = (name) => name.replace(/^["'`#[]+|["'`\]]+$/g, '');

function kindOf(path) {
  if (path.endsWith('.tsx')) return ts.ScriptKind.TSX;
  if (path.endsWith('.jsx')) return ts.ScriptKind.JSX;
  if (/\.[mc]?js$/.test(path)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

function members(owner, list, out) {
  for (const m of list) {
    if (!m.name && !ts.isConstructorDeclaration(m)) continue;
    if (ts.isConstructorDeclaration(m)) {
      out.add(owner + '.constructor');
    } else if (ts.isMethodDeclaration(m) || ts.isMethodSignature(m) || ts.isGetAccessor(m) || ts.isSetAccessor(m) || ts.isPropertySignature(m)) {
      out.add(owner + '.' + clean(m.name.getText()));
    } else if (ts.isPropertyDeclaration(m) && m.initializer && (ts.isArrowFunction(m.initializer) || ts.isFunctionExpression(m.initializer))) {
      out.add(owner + '.' + clean(m.name.getText()));
    }
  }
}

function statements(list, out) {
  for (const s of list) {
    if (ts.isFunctionDeclaration(s) && s.name) {
      out.add(s.name.text);
    } else if (ts.isClassDeclaration(s)) {
      const name = s.name ? s.name.text : 'default';
      out.add(name);
      members(name, s.members, out);
    } else if (ts.isInterfaceDeclaration(s)) {
      out.add(s.name.text);
      members(s.name.text, s.members, out);
    } else if (ts.isTypeAliasDeclaration(s) || ts.isEnumDeclaration(s)) {
      out.add(s.name.text);
    } else if (ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations) {
        if (!ts.isIdentifier(d.name)) continue;
        const init = d.initializer;
        if (init && ts.isCallExpression(init) && init.expression.getText() === 'require') continue;
        out.add(d.name.text);
        if (init && ts.isClassExpression(init)) members(d.name.text, init.members, out);
      }
    } else if (ts.isModuleDeclaration(s) && s.body && ts.isModuleBlock(s.body)) {
      statements(s.body.statements, out);
    } else if (ts.isExportAssignment(s) && ts.isIdentifier(s.expression)) {
      out.add('default'); // DocForge's alias of the exported name (export default x, export = x)
    }
  }
}

const rl = readline.createInterface({ input: process.stdin });
for await (const path of rl) {
  if (!path) continue;
  const text = fs.readFileSync(path, 'utf8');
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kindOf(path));
  const out = new Set();
  statements(sf.statements, out);
  const parseErrors = sf.parseDiagnostics.length;
  console.log([path, parseErrors > 0 ? '!error' : '', ...[...out].sort()].join('\t'));
}
