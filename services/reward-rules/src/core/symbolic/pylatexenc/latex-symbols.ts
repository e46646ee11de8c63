// Text replacements of pylatexenc 2.10 `latex2text` default specs: every macro whose
// replacement is a fixed string (first category wins, as in LatexContextDb).
// Alphabetic names with a non-blank replacement are packed as "name text" pairs.
// \today (the current date) is left out: core code is pure.

const PACKED = `
oe œ OE Œ ae æ AE Æ aa å AA Å o ø O Ø ss ß L Ł l ł i ı j ȷ textquoteleft ‘ textquoteright ’
textquotedblright ” textquotedblleft “ textendash – textemdash — textpm ± textmp ∓ texteuro €
hbar ħ ell ℓ forall ∀ complement ∁ partial ∂ exists ∃ nexists ∄ varnothing ∅ emptyset ∅ aleph ℵ
nabla ∇ in ∈ notin ∉ ni ∋ prod ∏ coprod ∐ sum ∑ setminus ∖ smallsetminus ∖ ast ∗ circ ∘ bullet ∙
propto ∝ infty ∞ parallel ∥ nparallel ∦ wedge ∧ vee ∨ cap ∩ cup ∪ int ∫ iint ∬ iiint ∭ oint ∮ sim ∼
backsim ∽ simeq ≃ approx ≈ neq ≠ equiv ≡ le ≤ ge ≥ leq ≤ geq ≥ leqslant ⩽ geqslant ⩾ leqq ≦ geqq ≧
lneqq ≨ gneqq ≩ ll ≪ gg ≫ nless ≮ ngtr ≯ nleq ≰ ngeq ≱ lesssim ≲ gtrsim ≳ lessgtr ≶ gtrless ≷
prec ≺ succ ≻ preceq ≼ succeq ≽ precsim ≾ succsim ≿ nprec ⊀ nsucc ⊁ subset ⊂ supset ⊃ subseteq ⊆
supseteq ⊇ nsubseteq ⊈ nsupseteq ⊉ subsetneq ⊊ supsetneq ⊋ cdot · times × otimes ⊗ oplus ⊕
bigotimes ⊗ bigoplus ⊕ cos cos sin sin tan tan arccos arccos arcsin arcsin arctan arctan cosh cosh
sinh sinh tanh tanh arccosh arccosh arcsinh arcsinh arctanh arctanh ln ln log log exp exp max max
min min sup sup inf inf lim lim prime ' dag † dagger † pm ± mp ∓ ldots … cdots ⋯ ddots ⋱ iddots ⋰
vdots ⋮ dots … dotsc … dotsb … dotsm … dotsi … dotso … langle ⟨ rangle ⟩ lvert | rvert | vert |
lVert ‖ rVert ‖ Vert ‖ mid | nmid ∤ uparrow ↑ downarrow ↓ rightarrow → to → leftarrow ←
longrightarrow ⟶ longleftarrow ⟵ alpha α Alpha Α beta β Beta Β gamma γ Gamma Γ delta δ Delta Δ
epsilon ϵ Epsilon Ε zeta ζ Zeta Ζ eta η Eta Η theta θ Theta Θ iota ι Iota Ι kappa κ Kappa Κ
lambda λ Lambda Λ mu μ Mu Μ nu ν Nu Ν xi ξ Xi Ξ omicron ο Omicron Ο pi π Pi Π rho ρ Rho Ρ sigma σ
Sigma Σ tau τ Tau Τ upsilon υ Upsilon Υ phi ϕ Phi Φ chi χ Chi Χ psi ψ Psi Ψ omega ω Omega Ω
varepsilon ε vartheta ϑ varpi ϖ varrho ϱ varsigma ς varphi φ ref <ref> autoref <ref> cref <ref>
Cref <Ref> eqref (<ref>) cite <cit.> citet <cit.> citep <cit.> textasciicircum ˆ textasciitilde ~
textexclamdown ¡ textcent ¢ textsterling £ textcurrency ¤ textyen ¥ textbrokenbar ¦ textsection §
textasciidieresis ¨ textcopyright © textordfeminine ª guillemotleft « textlnot ¬ textregistered ®
textasciimacron ¯ textdegree ° texttwosuperior ² textthreesuperior ³ textasciiacute ´ textmu µ
textparagraph ¶ textperiodcentered ˙ textonesuperior ¹ textordmasculine º guillemotright »
textonequarter ¼ textonehalf ½ textthreequarters ¾ textquestiondown ¿ DH Ð texttimes × TH Þ dh ð
textdiv ÷ th þ DJ Đ dj đ IJ Ĳ ij ĳ NG Ŋ ng ŋ textflorin ƒ texthvlig ƕ textnrleg ƞ textschwa ə
textphi ɸ textglotstop ʔ textturnk ʞ textasciicaron ˇ textasciibreve ˘ textacutedbl ˝ varkappa ϰ
backepsilon ϶ CYRYO Ё CYRDJE Ђ CYRIE Є CYRDZE Ѕ CYRII І CYRYI Ї CYRJE Ј CYRLJE Љ CYRNJE Њ CYRTSHE Ћ
CYRUSHRT Ў CYRDZHE Џ CYRA А CYRB Б CYRV В CYRG Г CYRD Д CYRE Е CYRZH Ж CYRZ З CYRI И CYRISHRT Й
CYRK К CYRL Л CYRM М CYRN Н CYRO О CYRP П CYRR Р CYRS С CYRT Т CYRU У CYRF Ф CYRH Х CYRC Ц CYRCH Ч
CYRSH Ш CYRSHCH Щ CYRHRDSN Ъ CYRERY Ы CYRSFTSN Ь CYREREV Э CYRYU Ю CYRYA Я cyra а cyrb б cyrv в
cyrg г cyrd д cyre е cyrzh ж cyrz з cyri и cyrishrt й cyrk к cyrl л cyrm м cyrn н cyro о cyrp п
cyrr р cyrs с cyrt т cyru у cyrf ф cyrh х cyrc ц cyrch ч cyrsh ш cyrshch щ cyrhrdsn ъ cyrery ы
cyrsftsn ь cyrerev э cyryu ю cyrya я cyryo ё cyrdje ђ cyrie є cyrdze ѕ cyrii і cyryi ї cyrje ј
cyrlje љ cyrnje њ cyrtshe ћ cyrushrt ў cyrdzhe џ CYRYAT Ѣ cyryat ѣ CYRBYUS Ѫ cyrbyus ѫ CYRFITA Ѳ
cyrfita ѳ CYRIZH Ѵ cyrizh ѵ CYRSEMISFTSN Ҍ cyrsemisftsn ҍ CYRRTICK Ҏ cyrrtick ҏ CYRGUP Ґ cyrgup ґ
CYRGHCRS Ғ cyrghcrs ғ CYRGHK Ҕ cyrghk ҕ CYRZHDSC Җ cyrzhdsc җ CYRZDSC Ҙ cyrzdsc ҙ CYRKDSC Қ
cyrkdsc қ CYRKVCRS Ҝ cyrkvcrs ҝ CYRKHCRS Ҟ cyrkhcrs ҟ CYRKBEAK Ҡ cyrkbeak ҡ CYRNDSC Ң cyrndsc ң
CYRNG Ҥ cyrng ҥ CYRPHK Ҧ cyrphk ҧ CYRABHHA Ҩ cyrabhha ҩ CYRSDSC Ҫ cyrsdsc ҫ CYRTDSC Ҭ cyrtdsc ҭ
CYRY Ү cyry ү CYRYHCRS Ұ cyryhcrs ұ CYRHDSC Ҳ cyrhdsc ҳ CYRTETSE Ҵ cyrtetse ҵ CYRCHRDSC Ҷ
cyrchrdsc ҷ CYRCHVCRS Ҹ cyrchvcrs ҹ CYRSHHA Һ cyrshha һ CYRABHCH Ҽ cyrabhch ҽ CYRABHCHDSC Ҿ
cyrabhchdsc ҿ CYRpalochka Ӏ CYRKHK Ӄ cyrkhk ӄ CYRLDSC Ӆ cyrldsc ӆ CYRNHK Ӈ cyrnhk ӈ CYRCHLDSC Ӌ
cyrchldsc ӌ CYRMDSC Ӎ cyrmdsc ӎ CYRAE Ӕ cyrae ӕ CYRSCHWA Ә cyrschwa ә CYRABHDZE Ӡ cyrabhdze ӡ
CYROTLD Ө cyrotld ө CYRGDSC Ӷ cyrgdsc ӷ CYRGDSCHCRS Ӻ cyrgdschcrs ӻ CYRHHK Ӽ cyrhhk ӽ CYRHHCRS Ӿ
cyrhhcrs ӿ textbaht ฿ textcompwordmark ‌ quotesinglbase ‚ quotedblbase „ textdagger †
textdaggerdbl ‡ textbullet • textellipsis … textperthousand ‰ textpertenthousand ‱ backprime ‵
guilsinglleft ‹ guilsinglright › textreferencemark ※ textinterrobang ‽ textfractionsolidus ⁄
textasteriskcentered ⁎ textdiscount ⁒ nolinebreak ⁠ textcolonmonetary ₡ textlira ₤ textnaira ₦
textwon ₩ textdong ₫ textpeso ₱ textcelsius ℃ textnumero № textcircledP ℗ wp ℘ textrecipe ℞
textservicemark ℠ texttrademark ™ textohm Ω textmho ℧ textestimated ℮ beth ℶ gimel ℷ daleth ℸ
textleftarrow ← textuparrow ↑ textrightarrow → textdownarrow ↓ leftrightarrow ↔ updownarrow ↕
nwarrow ↖ nearrow ↗ searrow ↘ swarrow ↙ nleftarrow ↚ nrightarrow ↛ arrowwaveleft ↜ arrowwaveright ↝
twoheadleftarrow ↞ twoheadrightarrow ↠ leftarrowtail ↢ rightarrowtail ↣ mapsto ↦ hookleftarrow ↩
hookrightarrow ↪ looparrowleft ↫ looparrowright ↬ leftrightsquigarrow ↭ nleftrightarrow ↮ Lsh ↰
Rsh ↱ curvearrowleft ↶ curvearrowright ↷ circlearrowleft ↺ circlearrowright ↻ leftharpoonup ↼
leftharpoondown ↽ upharpoonright ↾ upharpoonleft ↿ rightharpoonup ⇀ rightharpoondown ⇁
downharpoonright ⇂ downharpoonleft ⇃ rightleftarrows ⇄ dblarrowupdown ⇅ leftrightarrows ⇆
leftleftarrows ⇇ upuparrows ⇈ rightrightarrows ⇉ downdownarrows ⇊ leftrightharpoons ⇋
rightleftharpoons ⇌ nLeftarrow ⇍ nLeftrightarrow ⇎ nRightarrow ⇏ Leftarrow ⇐ Uparrow ⇑ Rightarrow ⇒
Downarrow ⇓ Leftrightarrow ⇔ Updownarrow ⇕ Lleftarrow ⇚ Rrightarrow ⇛ rightsquigarrow ⇝
DownArrowUpArrow ⇵ blacksquare ▪ dotplus ∔ rightangle ∟ angle ∠ measuredangle ∡ sphericalangle ∢
surfintegral ∯ volintegral ∰ clwintegral ∱ therefore ∴ because ∵ homothetic ∻ lazysinv ∾ wr ≀
cong ≅ approxnotequal ≆ approxeq ≊ tildetrpl ≋ allequal ≌ asymp ≍ Bumpeq ≎ bumpeq ≏ doteq ≐
doteqdot ≑ fallingdotseq ≒ risingdotseq ≓ eqcirc ≖ circeq ≗ estimates ≙ starequal ≛ triangleq ≜
between ≬ notlessgreater ≸ notgreaterless ≹ uplus ⊎ sqsubset ⊏ sqsupset ⊐ sqsubseteq ⊑ sqsupseteq ⊒
sqcap ⊓ sqcup ⊔ ominus ⊖ oslash ⊘ odot ⊙ circledcirc ⊚ circledast ⊛ circleddash ⊝ boxplus ⊞
boxminus ⊟ boxtimes ⊠ boxdot ⊡ vdash ⊢ dashv ⊣ top ⊤ perp ⊥ truestate ⊧ forcesextra ⊨ Vdash ⊩
Vvdash ⊪ VDash ⊫ nvdash ⊬ nvDash ⊭ nVdash ⊮ nVDash ⊯ vartriangleleft ⊲ vartriangleright ⊳
trianglelefteq ⊴ trianglerighteq ⊵ original ⊶ image ⊷ multimap ⊸ hermitconjmatrix ⊹ intercal ⊺
veebar ⊻ rightanglearc ⊾ bigwedge ⋀ bigvee ⋁ bigcap ⋂ bigcup ⋃ diamond ♢ star ⋆ divideontimes ⋇
bowtie ⋈ ltimes ⋉ rtimes ⋊ leftthreetimes ⋋ rightthreetimes ⋌ backsimeq ⋍ curlyvee ⋎ curlywedge ⋏
Subset ⋐ Supset ⋑ Cap ⋒ Cup ⋓ pitchfork ⋔ lessdot ⋖ gtrdot ⋗ verymuchless ⋘ verymuchgreater ⋙
lesseqgtr ⋚ gtreqless ⋛ curlyeqprec ⋞ curlyeqsucc ⋟ lnsim ⋦ gnsim ⋧ precedesnotsimilar ⋨ succnsim ⋩
ntriangleleft ⋪ ntriangleright ⋫ ntrianglelefteq ⋬ ntrianglerighteq ⋭ udots ⋰ barwedge ⌅
varperspcorrespond ⌆ lceil ⌈ rceil ⌉ lfloor ⌊ rfloor ⌋ recorder ⌕ ulcorner ⌜ urcorner ⌝ llcorner ⌞
lrcorner ⌟ frown ⌢ smile ⌣ lmoustache ⎰ rmoustache ⎱ textlangle 〈 textrangle 〉 textblank ␢
textvisiblespace ␣ square □ bigtriangleup △ blacktriangle ▴ vartriangle ▵ blacktriangleright ▸
triangleright ▹ bigtriangledown ▽ blacktriangledown ▾ triangledown ▿ blacktriangleleft ◂
triangleleft ◃ lozenge ◊ bigcirc ◯ textopenbullet ◦ textbigcircle ◯ textmusicalnote ♪ quarternote ♩
flat ♭ natural ♮ sharp ♯ longleftrightarrow ⟷ Longleftarrow ⟸ Longrightarrow ⟹ Longleftrightarrow ⟺
longmapsto ⟼ blacklozenge ⧫ clockoint ⨏ sqrint ⨖ amalg ⨿ lessapprox ⪅ gtrapprox ⪆ lneq ⪇ gneq ⪈
lnapprox ⪉ gnapprox ⪊ lesseqqgtr ⪋ gtreqqless ⪌ eqslantless ⪕ eqslantgtr ⪖ precneqq ⪵ succneqq ⪶
precapprox ⪷ succapprox ⪸ precnapprox ⪹ succnapprox ⪺ subseteqq ⫅ supseteqq ⫆ subsetneqq ⫋
supsetneqq ⫌ textdollar $ textquotesingle ' lbrace { rbrace } lnot ¬ div ÷ eth ƪ textdoublepipe ǂ
texttildelow ˜ texttheta θ textvartheta ϑ Stigma Ϛ Digamma Ϝ digamma ϝ Koppa Ϟ Sampi Ϡ textTheta ϴ
dddot ⃛ ddddot ⃜ hslash ℏ mho ℧ surd √ Colon ∷ lessequivlnt ≲ greaterequivlnt ≳ preccurlyeq ≼
succcurlyeq ≽ upslopeellipsis ⋰ downslopeellipsis ⋱ circledS Ⓢ diagup ╱ rightmoon ☾ mercury ☿
venus ♀ male ♂ jupiter ♃ saturn ♄ uranus ♅ neptune ♆ pluto ♇ aries ♈ taurus ♉ gemini ♊ cancer ♋
leo ♌ virgo ♍ libra ♎ scorpio ♏ sagittarius ♐ capricornus ♑ aquarius ♒ pisces ♓ eighthnote ♪
UpArrowBar ⤒ DownArrowBar ⤓ LeftRightVector ⥎ RightUpDownVector ⥏ DownLeftRightVector ⥐
LeftUpDownVector ⥑ LeftVectorBar ⥒ RightVectorBar ⥓ RightUpVectorBar ⥔ RightDownVectorBar ⥕
DownLeftVectorBar ⥖ DownRightVectorBar ⥗ LeftUpVectorBar ⥘ LeftDownVectorBar ⥙ LeftTeeVector ⥚
RightTeeVector ⥛ RightUpTeeVector ⥜ RightDownTeeVector ⥝ DownLeftTeeVector ⥞ DownRightTeeVector ⥟
LeftUpTeeVector ⥠ LeftDownTeeVector ⥡ UpEquilibrium ⥮ ReverseUpEquilibrium ⥯ RoundImplies ⥰ Angle ⦜
LeftTriangleBar ⧏ RightTriangleBar ⧐ RuleDelayed ⧴ perspcorrespond ⩞ Equal ⩵ NestedLessLess ⪡
NestedGreaterGreater ⪢ openbracketleft 〚 openbracketright 〛 id 𝕀 Ident 𝕀
`;

/** Fixed replacements that do not fit the packed form (blank text, symbols, backslash, backtick). */
const OTHERS: Record<string, string> = {
  '&': '&',
  $: '$',
  '{': '{',
  '}': '}',
  '#': '#',
  _: '_',
  limsup: 'lim sup',
  liminf: 'lim inf',
  ',': ' ',
  ';': ' ',
  ':': ' ',
  ' ': ' ',
  '!': '',
  quad: '  ',
  qquad: '    ',
  hspace: '',
  vspace: '\n',
  '\\': '\n',
  '-': '\u00ad',
  enskip: ' ',
  backslash: '\\',
  textbackslash: '\\',
  textasciigrave: '`',
};

function unpack(): Map<string, string> {
  const map = new Map<string, string>();
  const parts = PACKED.trim().split(/\s+/);
  for (let i = 0; i + 1 < parts.length; i += 2) map.set(parts[i] as string, parts[i + 1] as string);
  for (const [k, v] of Object.entries(OTHERS)) map.set(k, v);
  return map;
}

/** Macro name (no backslash) -> fixed text, for macros pylatexenc replaces by a constant. */
export const FIXED_MACRO_TEXT: ReadonlyMap<string, string> = unpack();
