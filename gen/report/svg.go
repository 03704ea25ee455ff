package report

import (
	"fmt"
	"html"
	"strconv"
	"strings"

	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
)

// Geometry of the SVG, in pixels. Text is monospace: a character of the
// 10-pixel font advances about 6 pixels, of the 13-pixel title font about
// 8; sizes are computed from the longest text so that nothing is clipped.
const (
	svgPlotH     = 600 // the arena's height
	svgTitleW    = 8   // advance of a 13-pixel monospace character (0.6 em), rounded up (textW: 10 pixels)
	svgPad       = 12  // margin around everything
	svgTop       = 64  // title, subtitle and the fused groups' labels above the plot
	svgLegendGap = 28  // between the plot and the legend
	svgLineH     = 14  // a legend line
	// svgMaxKeyed bounds the buffers the legend names one a line.
	svgMaxKeyed = 64
	// svgMaxName bounds a buffer name in the legend, in characters.
	svgMaxName = 48
	// svgMinName is the fewest characters of a name worth writing in a
	// rectangle after its number.
	svgMinName = 10
)

// svgColors are the fills of the buffer kinds.
var svgColors = map[string]string{"activation": "#8ecae6", "scratch": "#ffb703", "persistent": "#e76f51"}

// svgSwatches are the legend's lines: a mark (its x and y filled in)
// and what it means.
var svgSwatches = []struct{ mark, text string }{
	{`<rect x="%d" y="%d" width="18" height="10" fill="#8ecae6" stroke="#023047"/>`, "activation (a tensor)"},
	{`<rect x="%d" y="%d" width="18" height="10" fill="#ffb703" stroke="#023047"/>`, "scratch (an operator's working memory)"},
	{`<rect x="%d" y="%d" width="18" height="10" fill="#e76f51" stroke="#023047"/>`, "persistent (state kept across Invoke)"},
	{`<rect x="%d" y="%d" width="18" height="10" fill="none" stroke="#c1121f" stroke-width="1.5" stroke-dasharray="3"/>`, "output written over its dying input"},
	{`<rect x="%d" y="%d" width="18" height="10" fill="none" stroke="#2a9d8f" stroke-width="2" stroke-dasharray="6 3"/>`, "fused group, run row by row"},
	{`<path d="M%d %d h18" transform="translate(0 5)" stroke="red" stroke-dasharray="4"/>`, "lower bound (no plan is smaller)"},
}

// textW is the width of s in the 10-pixel monospace font, rounded up
// generously (fonts advance 0.6 em or a little more).
func textW(s string) int { return len([]rune(s))*61/10 + 2 }

// svgText makes a name from the model safe as SVG text: unprintable
// characters (which XML may not even allow) quoted as Go escapes, then
// the markup characters escaped.
func svgText(s string) string {
	for _, r := range s {
		if !strconv.IsPrint(r) {
			s = strconv.Quote(s)
			break
		}
	}
	return html.EscapeString(s)
}

// cut shortens s to at most n characters, marking the cut with "...".
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 3 {
		return string(r[:max(n, 0)])
	}
	return string(r[:n-3]) + "..."
}

// cutName shortens a tensor name to at most n characters keeping its end,
// the part that tells layers apart ("...Conv2d_3_pointwise/Relu6").
func cutName(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 3 {
		return string(r[len(r)-max(n, 0):])
	}
	return "..." + string(r[len(r)-(n-3):])
}

// labelSpace keeps the boxes of the labels placed so far, by rows of
// svgLabelH pixels, so that a label that would overlap one is left out.
type labelSpace map[int][][3]int // row -> {x0, x1, baseline}

// svgLabelH is the height a label takes.
const svgLabelH = 12

// take reserves the box of a label with its baseline at x, y, w pixels
// wide, reporting false when it would overlap a label placed before.
func (ls labelSpace) take(x, y, w int) bool {
	r := y / svgLabelH
	for _, rr := range []int{r - 1, r, r + 1} {
		for _, b := range ls[rr] {
			if x < b[1] && b[0] < x+w && y-b[2] < svgLabelH && b[2]-y < svgLabelH {
				return false
			}
		}
	}
	ls[r] = append(ls[r], [3]int{x, x + w, y})
	return true
}

// niceStep returns a step of 1, 2 or 5 times a power of ten that divides
// [0, size] into at most 8 intervals.
func niceStep(size int) int {
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if size/(m*p) <= 8 {
				return m * p
			}
		}
	}
}

// SVG draws the arena of program pr planned as l: offset upwards against
// operator to the right, one rectangle per buffer over the operators it
// is live at, filled by kind and labelled with its number and, where it
// fits, its name. Overlapped pairs (an output written over its dying
// input) are outlined red and dashed, fused groups teal; the lower bound
// is a dashed red line. A legend beside the plot explains the colours and
// outlines and names the buffers (the first svgMaxKeyed); every rectangle
// has a tooltip with its name, offset, size and lifetime. The picture is
// sized to its text: the title, the operator labels under the axis and
// the legend are never clipped.
func SVG(pr *program.Program, l *layout.Layout) []byte {
	n := len(pr.Ops)
	size := max(l.Plan.Size, 1)
	for _, p := range l.Pools {
		size = max(size, p.Base+p.Plan.Size) // the inputs and outputs of -io external too
	}
	colW := min(48, max(16, 960/max(n, 1)))
	plotW := max(n, 1) * colW
	scale := float64(svgPlotH) / float64(size)
	y := func(off int) int { return svgTop + svgPlotH - int(float64(off)*scale) }

	order := Order(pr)
	step := niceStep(size)
	tickW := textW(strconv.Itoa(size / step * step))
	left := svgPad + 14 + tickW + 8 // the axis title, tick labels, a gap
	opLabel := func(s int) string { return fmt.Sprintf("%d %s", s, pr.Ops[s].Code) }
	labelW := 0
	for s := range n {
		labelW = max(labelW, textW(opLabel(s)))
	}
	bottom := 10 + labelW + 22 + svgPad // the labels, the axis title

	// The legend: the colours and outlines, then the buffers by number.
	var legend []string // lines after the swatches
	for k, i := range order {
		if k == svgMaxKeyed {
			legend = append(legend, fmt.Sprintf("... and %d more (layout.txt lists them all)", len(order)-k))
			break
		}
		b := pr.Buffers[i]
		legend = append(legend, fmt.Sprintf("b%-3d %s", k, cutName(b.Name, svgMaxName)))
	}
	legendW := 0
	for _, t := range svgSwatches {
		legendW = max(legendW, 24+textW(t.text))
	}
	for _, t := range legend {
		legendW = max(legendW, textW(t))
	}
	const swatches = 7
	legendH := (swatches+2+len(legend))*svgLineH + svgPad
	const xTitle = "operator (execution order)"
	legendX := left + max(plotW, textW(xTitle)) + svgLegendGap

	title := svgText(pr.Graph.Name)
	sub := fmt.Sprintf("arena %d bytes, lower bound %d bytes, %s", l.Plan.Size, l.Plan.LowerBound, l.Plan.CertText())
	w := max(legendX+legendW+svgPad, svgPad+len([]rune(pr.Graph.Name))*svgTitleW+svgPad, svgPad+textW(sub)+svgPad)
	h := max(svgTop+svgPlotH+bottom, svgTop+legendH)

	var sb strings.Builder
	fmt.Fprintf(&sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"10\">\n", w, h, w, h)
	fmt.Fprintf(&sb, "<title>%s</title>\n", title)
	fmt.Fprintf(&sb, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", w, h)
	fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\" font-size=\"13\" font-weight=\"bold\">%s</text>\n", svgPad, 22, title)
	fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\">%s</text>\n", svgPad, 38, svgText(sub))

	// The y axis: ticks and their offsets, and its title.
	fmt.Fprintf(&sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n", left, svgTop, plotW, svgPlotH)
	for v := 0; v <= size; v += step {
		ty := y(v)
		fmt.Fprintf(&sb, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>", left-4, ty, left, ty)
		fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%d</text>\n", left-6, ty+3, v)
	}
	fmt.Fprintf(&sb, "<text transform=\"translate(%d %d) rotate(-90)\" text-anchor=\"middle\">arena offset (bytes)</text>\n", svgPad+8, svgTop+svgPlotH/2)

	// The memories of a multi-pool layout, end to end: where each starts.
	for _, p := range l.Pools {
		name := p.Name
		if p.IO != "" {
			name = p.IO + " (application's)"
		}
		if name == "" {
			name = "arena"
		}
		py := y(p.Base)
		fmt.Fprintf(&sb, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\" stroke-dasharray=\"2 2\"/>", left, py, left+plotW, py)
		fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\" fill=\"#555\">%s</text>\n", left+2, py-2, svgText(name))
	}

	// The buffers.
	for k, i := range order {
		b := pr.Buffers[i]
		if b.Size == 0 {
			continue
		}
		x, bw := left+b.First*colW, (b.Last-b.First+1)*colW
		top := y(l.Plan.Offsets[i] + b.Size)
		bh := max(1, int(float64(b.Size)*scale))
		fmt.Fprintf(&sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"#023047\"><title>b%d %s: offset %d, %d bytes, ops %d-%d</title></rect>\n",
			x, top, bw, bh, svgColors[b.Kind.String()], k, svgText(b.Name), l.Plan.Offsets[i], b.Size, b.First, b.Last)
	}
	// Overlapped pairs: the output, drawn over its input, outlined dashed.
	for _, ov := range pr.Overlaps {
		b := pr.Buffers[ov.Out]
		fmt.Fprintf(&sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#c1121f\" stroke-width=\"1.5\" stroke-dasharray=\"3\"><title>operator %d writes %s over its dying input</title></rect>\n",
			left+b.First*colW, y(l.Plan.Offsets[ov.Out]+b.Size), (b.Last-b.First+1)*colW, max(1, int(float64(b.Size)*scale)), ov.Op, svgText(b.Name))
	}
	// Fused groups: their operators' columns, outlined dashed, labelled
	// above the plot.
	for _, grp := range pr.Groups {
		fmt.Fprintf(&sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#2a9d8f\" stroke-width=\"2\" stroke-dasharray=\"6 3\"><title>operators %d-%d fused, row by row: %d line buffers</title></rect>\n",
			left+grp.First*colW, svgTop, (grp.Last-grp.First+1)*colW, svgPlotH, grp.First, grp.Last, len(grp.Lines))
		fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\" fill=\"#2a9d8f\">fused %d-%d</text>\n", left+grp.First*colW+2, svgTop-5, grp.First, grp.Last)
	}
	// The lower bound, labelled inside the plot at its right end, before
	// the buffers' labels, which give way to it.
	placed := labelSpace{}
	ly := y(l.Plan.LowerBound)
	lbText := fmt.Sprintf("lower bound %d", l.Plan.LowerBound)
	placed.take(left+plotW-4-textW(lbText), ly+12, textW(lbText))
	fmt.Fprintf(&sb, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"red\" stroke-dasharray=\"4\"/>\n", left, ly, left+plotW, ly)
	fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\" fill=\"red\" text-anchor=\"end\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">%s</text>\n",
		left+plotW-4, ly+12, lbText)
	// Buffer labels, over every rectangle and outline, with a white halo:
	// the number, and the end of the name where it fits; none where it
	// would cover another label (a buffer drawn over another).
	for k, i := range order {
		b := pr.Buffers[i]
		bh := int(float64(b.Size) * scale)
		if b.Size == 0 || bh < svgLabelH {
			continue
		}
		bw := (b.Last - b.First + 1) * colW
		fit := (bw - 6) * 10 / 61
		num := fmt.Sprintf("b%d", k)
		label := num
		if fit >= len(num)+1+svgMinName {
			label = num + " " + cutName(b.Name, fit-len(num)-1)
			if len(b.Tensors) == 0 {
				// "op3 scratch0 (CONV_2D)": its start tells.
				label = num + " " + cut(b.Name, fit-len(num)-1)
			}
		}
		if len([]rune(label)) > fit {
			continue
		}
		// At the top of the rectangle, else at its bottom; the name and
		// number, else the number.
		lx, ly, ok := left+b.First*colW+2, 0, false
		ys := []int{y(l.Plan.Offsets[i]+b.Size) + 11}
		if bh >= 2*svgLabelH {
			ys = append(ys, y(l.Plan.Offsets[i])-3)
		}
	place:
		for _, t := range []string{label, num} {
			for _, yy := range ys {
				if placed.take(lx, yy, textW(t)) {
					label, ly, ok = t, yy, true
					break place
				}
			}
		}
		if !ok {
			continue
		}
		fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">%s</text>\n",
			lx, ly, svgText(label))
	}

	// The x axis: one label per operator, turned to run down the page.
	for s := range n {
		lx, ly := left+s*colW+colW/2+3, svgTop+svgPlotH+8
		fmt.Fprintf(&sb, "<text transform=\"translate(%d %d) rotate(90)\">%s</text>\n", lx, ly, svgText(opLabel(s)))
	}
	if plotW >= textW(xTitle) {
		fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", left+plotW/2, svgTop+svgPlotH+10+labelW+16, xTitle)
	} else {
		fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\">%s</text>\n", left, svgTop+svgPlotH+10+labelW+16, xTitle)
	}

	// The legend.
	lx, ly0 := legendX, svgTop
	line := func(k int) int { return ly0 + k*svgLineH }
	fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">Legend</text>\n", lx, line(0)+10)
	for k, sw := range svgSwatches {
		fmt.Fprintf(&sb, "%s<text x=\"%d\" y=\"%d\">%s</text>\n", fmt.Sprintf(sw.mark, lx, line(k+1)+1), lx+24, line(k+1)+10, sw.text)
	}
	fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">Buffers</text>\n", lx, line(swatches+1)+10)
	for k, t := range legend {
		fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\" xml:space=\"preserve\">%s</text>\n", lx, line(swatches+2+k)+10, svgText(t))
	}
	sb.WriteString("</svg>\n")
	return []byte(sb.String())
}
