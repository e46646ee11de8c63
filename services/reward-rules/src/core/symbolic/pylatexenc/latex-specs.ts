// Argument specifications of pylatexenc 2.10 `latexwalker` default context
// (the parser side of LatexNodes2Text). An argspec char is '{' (mandatory: one
// token or a braced group), '[' (optional [..]) or '*' (optional star).
// Macros absent here take no arguments, as pylatexenc's unknown-macro spec.

const MACRO_GROUPS: ReadonlyArray<readonly [string, string]> = [
  [
    '[{',
    'documentclass usepackage RequirePackage selectlanguage includegraphics footnote hphantom vphantom ' +
      'sqrt xleftarrow xrightarrow color pagecolor pdfloesung pdfsolution',
  ],
  ['[{{', 'setlength addlength setcounter addcounter textcolor colorbox'],
  ['*{[[{', 'newcommand renewcommand providecommand'],
  ['*{[[{{', 'newenvironment renewenvironment provideenvironment'],
  ['*{{', 'DeclareMathOperator'],
  ['*{', 'hspace vspace'],
  [
    '{',
    'mbox textrm textit textbf textmd textsc textsf textsl texttt textup text ensuremath ' +
      'title author date input include bibliography emph mathrm mathbb mathbf mathit mathsf mathtt ' +
      'mathcal mathscr mathfrak label ref autoref cref Cref eqref url hypersetup keywords ' +
      '\' ` " c ^ ~ H k = b . d r u v not vec dot hat check breve acute grave tilde bar ddot ' +
      'overline underline widehat widetilde wideparen overleftarrow overrightarrow overleftrightarrow ' +
      'underleftarrow underrightarrow underleftrightarrow overbrace underbrace overgroup undergroup ' +
      'overbracket underbracket overlinesegment underlinesegment overleftharpoon overrightharpoon ' +
      'ket bra citetext citenum UebungLoesungFont UebungHinweisFont UebungExTitleFont ' +
      'UebungSubExTitleFont UebungTipsFont UebungLabel UebungSubLabel UebungLabelEnum ' +
      'UebungLabelEnumSub UebungSolLabel UebungHinweisLabel UebungHinweiseLabel ' +
      'UebungSolEquationLabel UebungTipsLabel UebungTipsEquationLabel UebungsblattTitleSeries ' +
      'UebungsblattTitleSolutions UebungsblattTitleTips UebungsblattNumber UebungsblattTitleFont ' +
      'UebungTitleCenterVSpacing UebungAttachedSolutionTitleTop UebungAttachedSolutionTitleFont ' +
      'UebungAttachedSolutionTitle UebungTextAttachedSolution UebungDueByLabel UebungDueBy ' +
      'UebungLecture UebungProf UebungLecturer UebungSemester UebungLogoFile UebungLanguage ' +
      'UebungStyle subuebung subexercise exenumfulllabel hint hints hinweis hinweise',
  ],
  ['[', 'item'],
  // "pagagraph" is pylatexenc's own typo: \paragraph therefore takes no argument.
  ['*[{', 'chapter section subsection subsubsection pagagraph subparagraph'],
  ['{{', 'frac nicefrac braket ketbra texorpdfstring defcitealias'],
  ['[{{{', 'definecolor providecolor'],
  ['[{[{', 'colorlet'],
  ['', 'nopagecolor'],
  ['[{[{{', 'fcolorbox'],
  ['{{{', 'boxframe'],
  ['*[{{{', 'rowcolors'],
  ['*[[{', 'cite citet citep citealt citealp citeauthor Citet Citep Citealt Citealp Citeauthor'],
  ['[[{', 'citefullauthor citeyear citeyearpar citetalias citepalias'],
  ['{[', 'uebung exercise'],
];

const ENV_GROUPS: ReadonlyArray<readonly [string, string]> = [
  [
    '[',
    'figure figure* table table* theorem proposition lemma corollary definition conjecture remark ' +
      'proof thm prop lem cor conj rem defn enumerate itemize description',
  ],
  ['{', 'tabular alignat alignat*'],
  ['{{', 'tabular*'],
  ['{[{', 'tabularx'],
  ['[{', 'array'],
];

function table(groups: ReadonlyArray<readonly [string, string]>): Map<string, string> {
  const map = new Map<string, string>();
  for (const [spec, names] of groups) for (const name of names.split(' ')) map.set(name, spec);
  return map;
}

/** Macro name -> argspec (`\\` and `\verb` are special-cased by the walker). */
export const MACRO_ARGSPECS: ReadonlyMap<string, string> = table(MACRO_GROUPS);

/** Environment name -> argspec of `\begin{name}` (others take none). */
export const ENV_ARGSPECS: ReadonlyMap<string, string> = table(ENV_GROUPS);

/** Environments pylatexenc parses in math mode. */
export const MATH_ENVS: ReadonlySet<string> = new Set(
  ('equation equation* eqnarray eqnarray* align align* gather gather* flalign flalign* ' + 'multline multline* alignat alignat* split').split(' '),
);

/** Latex "specials" (longest match wins) and their text. */
export const SPECIALS_TEXT: ReadonlyMap<string, string> = new Map([
  ['&', '   '],
  ['~', '\u00a0'],
  ['``', '\u201c'],
  ["''", '\u201d'],
  ['--', '\u2013'],
  ['---', '\u2014'],
  ['!`', '\u00a1'],
  ['?`', '\u00bf'],
]);
