package report

import (
	"fmt"
	"html"
	"strings"

	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
)

// SVG draws the arena of program pr planned as l: one rectangle per buffer: x is the operator range, y the offset.
func SVG(pr *program.Program, l *layout.Layout) []byte {
	title := pr.Graph.Name
	const (
		colW, left, top, plotH = 24, 80, 40, 600
	)
	n := len(pr.Ops)
	size := max(l.Plan.Size, 1)
	scale := float64(plotH) / float64(size)
	w := left + n*colW + 20
	h := top + plotH + 60
	var sb strings.Builder
	fmt.Fprintf(&sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"monospace\" font-size=\"10\">\n", w, h)
	fmt.Fprintf(&sb, "<title>%s</title>\n", html.EscapeString(title))
	fmt.Fprintf(&sb, "<text x=\"%d\" y=\"20\" font-size=\"13\">%s: arena %d bytes, lower bound %d, %s</text>\n",
		left, html.EscapeString(title), l.Plan.Size, l.Plan.LowerBound, html.EscapeString(l.Plan.CertText()))
	fmt.Fprintf(&sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n", left, top, n*colW, plotH)
	colors := map[string]string{"activation": "#8ecae6", "scratch": "#ffb703", "persistent": "#e76f51"}
	for k, i := range Order(pr) {
		b := pr.Buffers[i]
		if b.Size == 0 {
			continue
		}
		x := left + b.First*colW
		bw := (b.Last - b.First + 1) * colW
		y := top + plotH - int(float64(l.Plan.Offsets[i]+b.Size)*scale)
		bh := max(1, int(float64(b.Size)*scale))
		fmt.Fprintf(&sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"#023047\"><title>b%d %s: offset %d, %d bytes, ops %d-%d</title></rect>\n",
			x, y, bw, bh, colors[b.Kind.String()], k, html.EscapeString(b.Name), l.Plan.Offsets[i], b.Size, b.First, b.Last)
		if bh >= 12 {
			fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\">b%d</text>\n", x+2, y+11, k)
		}
	}
	// Overlapped pairs: the output, drawn over its input, outlined dashed.
	for _, ov := range pr.Overlaps {
		b := pr.Buffers[ov.Out]
		x := left + b.First*colW
		y := top + plotH - int(float64(l.Plan.Offsets[ov.Out]+b.Size)*scale)
		fmt.Fprintf(&sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#c1121f\" stroke-dasharray=\"3\"><title>operator %d writes %s over its dying input</title></rect>\n",
			x, y, (b.Last-b.First+1)*colW, max(1, int(float64(b.Size)*scale)), ov.Op, html.EscapeString(b.Name))
	}
	// Fused groups: their operators' columns, outlined dashed.
	for _, grp := range pr.Groups {
		fmt.Fprintf(&sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#2a9d8f\" stroke-width=\"2\" stroke-dasharray=\"6 3\"><title>operators %d-%d fused, row by row: %d line buffers</title></rect>\n",
			left+grp.First*colW, top, (grp.Last-grp.First+1)*colW, plotH, grp.First, grp.Last, len(grp.Lines))
		fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\" fill=\"#2a9d8f\">fused %d-%d</text>\n", left+grp.First*colW+2, top-4, grp.First, grp.Last)
	}
	ly := top + plotH - int(float64(l.Plan.LowerBound)*scale)
	fmt.Fprintf(&sb, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"red\" stroke-dasharray=\"4\"/>\n", left, ly, left+n*colW, ly)
	fmt.Fprintf(&sb, "<text x=\"2\" y=\"%d\" fill=\"red\">lower bound</text>\n", ly+4)
	fmt.Fprintf(&sb, "<text x=\"2\" y=\"%d\">0</text><text x=\"2\" y=\"%d\">%d</text>\n", top+plotH, top+10, l.Plan.Size)
	for s := 0; s < n; s++ {
		fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\" transform=\"rotate(60 %d %d)\">%d %s</text>\n",
			left+s*colW+4, top+plotH+12, left+s*colW+4, top+plotH+12, s, html.EscapeString(pr.Ops[s].Code.String()))
	}
	sb.WriteString("</svg>\n")
	return []byte(sb.String())
}
