// Package plots is the one helper package of the course notebooks (notebooks/*.ipynb): every
// notebook imports it, and no notebook defines a helper of its own.
//
// It draws with gonum/plot and shows the result under a GoNB cell:
//
//   - New makes a plot with title, axis labels and plain tick labels; Show renders it as a PNG
//     and displays it; Grid puts several plots, a colour bar and a colour key into one picture
//     with a title (ShowTiles is the short form). Must and Must2 turn (value, error) into the
//     value or a panic, which fails the cell.
//   - Heat draws a matrix as coloured cells, row 0 at the top as in a printed matrix, with
//     IntTicks (integers or names such as tokens, never fractions), masked cells in their own
//     colour (MaskColor) and a colour bar; its Text writes a label in each cell (a token, say),
//     in black or white to suit the cell's colour.
//   - Sequential is the palette for magnitudes (dark = low, yellow = high); Cyclic is the palette
//     for angles, whose two ends are the same colour, so 0 and 2π look alike as they should;
//     Categorical gives kinds (visible, padding, ...) their own colours, named by Grid.Swatches.
//   - Ticks and LogTicks label linear and logarithmic axes cleanly; log-axis labels are centred
//     on the data area (gonum alone shrinks such plots). PointLabels names crowded points, each
//     name where it covers no marker and no other name (notebook 12's roofline).
//   - AttentionGrid and AttentionHeads draw a model's attention probabilities (chapter 07's
//     Trace.Attn), layers x heads, with the prompt's tokens on both axes (TokenLabels makes
//     them printable in the plot font); chapter 07's ScoreHeads names the heads (previous-token,
//     first-token, induction) and Model.LogitLens reads every layer's prediction.
//   - PickModel chooses the model a notebook draws behaviour from: Qwen3-0.6B when QWEN3_MODEL is
//     set, the course's tiny model trained on Go otherwise, and says which (and what to call the
//     Go snippets: held-out only for the tiny model).
//   - HeadEvidence, EvidenceRows/Table/Plot, EvidenceNames, KeysOf and NamedAttentionHeads show
//     and title heads by the evidence of chapter 07's MeasureHeads (held-out text, controls, bar),
//     and EvenSpread scores the head that spreads its weight evenly, the baseline (heads.go);
//     LensHeat draws the logit lens, Warped measures what a sampling filter keeps (sampling.go);
//     LoadTraining reads the tiny model's loss curve and SharedRow counts the ids that share one
//     embedding row (training.go); Saturation and Wirings compute the whys of chapters 05 and 07
//     (whys.go).
//   - Topic helpers of single notebooks: ByHandTokenizer, Spell, MergeAll and TokenCells (bpe.go,
//     notebook 02); Surface and Diverging (surface.go); ProjectedCells (kvcache.go, notebook 08);
//     MaskKinds (batching.go, notebook 10); LogLogSlope, TokenFLOPs and RoundBlocks (powerlaw.go
//     and roofline.go, notebook 12).
//   - NotebookClaims binds the numbers a notebook's prose states to the cells that compute them:
//     the markdown marks a number with <!--claim:NAME--> and a cell calls Check(NAME, value),
//     which fails the cell when the two disagree beyond the precision written (claims.go).
//   - TinyTokenizer and GoldenAttentionLayer load reference data that notebooks use; LoadBench
//     reads notebooks/data/bench.json (measured speeds), ReadGoBench and Medians the output of
//     `go test -bench`; TopIndices ranks a vector.
//
// Everything here is tested (plots_test.go and a test file per topic): the PNGs decode, masked cells get the mask colour,
// cell labels are drawn in the readable colour and inside their cells, the cyclic palette closes,
// ticks and labels are what the axes need.
package plots
