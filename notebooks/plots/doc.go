// Package plots is the one helper package of the course notebooks (notebooks/*.ipynb): every
// notebook imports it, and no notebook defines a helper of its own.
//
// It draws with gonum/plot and shows the result under a GoNB cell:
//
//   - Show renders a plot as a PNG and displays it; Grid puts several plots (and a colour bar)
//     into one picture with a title; Must turns (value, error) into a value or a panic, which
//     fails the cell.
//   - Heat draws a matrix as coloured cells, row 0 at the top as in a printed matrix, with integer
//     (or labelled) ticks, masked cells in their own colour (MaskColor) and a colour bar.
//   - Sequential is the palette for magnitudes (dark = low, yellow = high); Cyclic is the palette
//     for angles, whose two ends are the same colour, so 0 and 2π look alike as they should.
//   - AttentionGrid draws a model's attention probabilities, layers x heads, with the prompt's
//     tokens on both axes (TokenLabels makes them printable in the plot font); HeadScores measures
//     two patterns trained heads show: a first-token sink and previous-token attention.
//   - LoadBench reads notebooks/data/bench.json (measured speeds); ReadGoBench reads the output of
//     `go test -bench`; TopIndices ranks a vector.
//
// Everything here is tested in plots_test.go: the PNGs decode, masked cells get the mask colour,
// the cyclic palette closes, ticks and labels are what the axes need.
package plots
