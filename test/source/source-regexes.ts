import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

/** One regular expression written in the sources, where it is written. */
export interface SourceRegex {
  /** `path:line` from the repository root. */
  where: string;
  source: string;
  flags: string;
}

/** A `new RegExp(...)` whose pattern is not made of constants: no checker can read it. */
export interface UncheckableRegex {
  where: string;
  text: string;
}

/** Every `.ts` file under `dir` (not `.d.ts`). */
function typeScriptFiles(dir: string, into: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) typeScriptFiles(path, into);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) into.push(path);
  }
  return into;
}

/**
 * The string an expression always has, when it is built from literals and `const`s (through
 * imports too): `String.raw` templates, templates with constant parts, `+`. `undefined` otherwise.
 */
function constantString(node: ts.Expression, checker: ts.TypeChecker, seen = new Set<ts.Node>()): string | undefined {
  if (seen.has(node)) return undefined;
  seen.add(node);
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) {
    return constantString(node.expression, checker, seen);
  }
  if (ts.isTaggedTemplateExpression(node) && node.tag.getText() === 'String.raw') {
    const template = node.template;
    if (ts.isNoSubstitutionTemplateLiteral(template)) return template.rawText;
    let text = template.head.rawText ?? '';
    for (const span of template.templateSpans) {
      const value = constantString(span.expression, checker, seen);
      if (value === undefined) return undefined;
      text += value + (span.literal.rawText ?? '');
    }
    return text;
  }
  if (ts.isTemplateExpression(node)) {
    let text = node.head.text;
    for (const span of node.templateSpans) {
      const value = constantString(span.expression, checker, seen);
      if (value === undefined) return undefined;
      text += value + span.literal.text;
    }
    return text;
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const left = constantString(node.left, checker, seen);
    const right = constantString(node.right, checker, seen);
    return left === undefined || right === undefined ? undefined : left + right;
  }
  if (ts.isIdentifier(node)) {
    let symbol = checker.getSymbolAtLocation(node);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const declaration = symbol?.valueDeclaration;
    if (
      declaration &&
      ts.isVariableDeclaration(declaration) &&
      declaration.initializer &&
      ts.getCombinedNodeFlags(declaration) & ts.NodeFlags.Const
    ) {
      return constantString(declaration.initializer, checker, seen);
    }
  }
  return undefined;
}

/**
 * Every regular expression in the TypeScript sources under `dirs` (paths from `root`): each
 * literal, and each `RegExp(...)`/`new RegExp(...)` whose arguments are constants. Those whose
 * pattern is not a constant are returned apart, since nothing can say whether they are safe.
 */
export function sourceRegexes(root: string, dirs: string[]): { regexes: SourceRegex[]; uncheckable: UncheckableRegex[] } {
  const files = dirs.flatMap((dir) => typeScriptFiles(join(root, dir)));
  // Only binding is needed (constants across imports), so nothing outside these files is loaded.
  const options: ts.CompilerOptions = { noLib: true, types: [], module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext };
  const host = ts.createCompilerHost(options);
  // Relative imports only: constants come from these sources, and loading every dependency's
  // declarations would take most of the test's time.
  host.resolveModuleNameLiterals = (literals, containingFile) =>
    literals.map((literal) =>
      literal.text.startsWith('.') ? ts.resolveModuleName(literal.text, containingFile, options, host) : { resolvedModule: undefined },
    );
  const program = ts.createProgram(files, options, host);
  const checker = program.getTypeChecker();
  const regexes: SourceRegex[] = [];
  const uncheckable: UncheckableRegex[] = [];
  for (const file of files) {
    const sourceFile = program.getSourceFile(file);
    if (!sourceFile) throw new Error(`${file} was not parsed`);
    const where = (node: ts.Node) =>
      `${relative(root, file).split(sep).join('/')}:${sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1}`;
    const visit = (node: ts.Node): void => {
      if (ts.isRegularExpressionLiteral(node)) {
        const end = node.text.lastIndexOf('/');
        regexes.push({ where: where(node), source: node.text.slice(1, end), flags: node.text.slice(end + 1) });
      } else if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && ts.isIdentifier(node.expression) && node.expression.text === 'RegExp') {
        const [pattern, flags] = node.arguments ?? [];
        const source = pattern && constantString(pattern, checker);
        const flagText = flags ? constantString(flags, checker) : '';
        if (source === undefined || flagText === undefined) uncheckable.push({ where: where(node), text: node.getText(sourceFile) });
        else regexes.push({ where: where(node), source, flags: flagText });
      }
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
  }
  return { regexes, uncheckable };
}
