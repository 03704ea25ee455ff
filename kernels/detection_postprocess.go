package kernels

import "math"

// detectionParams is TFLite_Detection_PostProcess known at generation time
// (TFLM kernels/detection_postprocess.cc, float32).
type detectionParams struct {
	NumBoxes, BoxStride            int32 // anchors; values per box encoding (>= 4)
	NumClasses, ClassesWithBg      int32 // classes; score columns (label offset = difference)
	MaxDetections                  int32
	Categories                     int32 // fast NMS: min(max_classes_per_detection, NumClasses)
	DetectionsPerClass             int32 // regular NMS
	Regular                        bool
	ScoreThreshold, IoU            float32
	YScale, XScale, HScale, WScale float32
}

// detectionScratch is the kernel's working memory, sized by the lowering:
// Boxes 4*NumBoxes; Scores, Keep, Active, Order and Selected NumBoxes
// each; Tmp and KeepScores max(NumBoxes, MaxDetections); ClassIdx
// NumBoxes*NumClasses (fast NMS); Merged, MergedScores and SortIdx
// MaxDetections+min(NumBoxes, DetectionsPerClass) (regular NMS).
type detectionScratch struct {
	Boxes, Scores, KeepScores, MergedScores []float32
	Keep, Order, Tmp, Selected, ClassIdx    []int32
	Merged, SortIdx                         []int32
	Active                                  []int8
}

// detectionPostProcessF32 is TFLite_Detection_PostProcess for float32:
// box encodings [1, n, stride] decoded against anchors [n, 4] (y, x, h, w)
// into corners in float64 then float32 as TFLM computes them (TFLM's
// DecodeCenterSizeBoxes divides and calls exp in double), then fast
// NMS (each anchor ranked by its best class) or regular NMS (per class,
// merged), with TFLM's orders and tie-breaks: a stable sort by decreasing
// score for NMS candidates, (score decreasing, index increasing) for top-k
// selections. Outputs: boxes (ymin, xmin, ymax, xmax), classes, scores
// and the count. Fast NMS writes its k-th detection (category c of its
// anchor) at Categories*k + c, as TFLM does, which spreads the detections
// out when Categories > 1; positions not written are zero (TFLM leaves
// them as they were). When a decoded box is empty or inverted,
// TFLM's Invoke fails; here every output is then zero. NaN scores are
// never kept; NaN among the class scores of an anchor in fast NMS gives an
// order TFLM's std::partial_sort may not.
func detectionPostProcessF32(enc, scores []float32, anchors string, boxes, classes, outScores, num []float32, p *detectionParams, s *detectionScratch) {
	nb := p.NumBoxes
	clear(boxes)
	clear(classes)
	clear(outScores)
	num[0] = 0
	for i := int32(0); i < nb; i++ {
		e := enc[i*p.BoxStride : i*p.BoxStride+4]
		a := int(4 * i)
		ay, ax := float64(ldf32(anchors, a)), float64(ldf32(anchors, a+1))
		ah, aw := float64(ldf32(anchors, a+2)), float64(ldf32(anchors, a+3))
		yc := float32(float64(float64(e[0])/float64(p.YScale)*ah) + ay)
		xc := float32(float64(float64(e[1])/float64(p.XScale)*aw) + ax)
		hh := float32(0.5 * math.Exp(float64(e[2])/float64(p.HScale)) * ah)
		hw := float32(0.5 * math.Exp(float64(e[3])/float64(p.WScale)) * aw)
		b := s.Boxes[4*i : 4*i+4]
		b[0], b[1], b[2], b[3] = yc-hh, xc-hw, yc+hh, xc+hw
		if !(b[0] < b[2]) || !(b[1] < b[3]) {
			return
		}
	}
	cw, off := p.ClassesWithBg, p.ClassesWithBg-p.NumClasses
	if !p.Regular {
		nc := p.NumClasses
		for r := int32(0); r < nb; r++ {
			row := scores[r*cw+off : r*cw+off+nc]
			idx := s.ClassIdx[r*nc : r*nc+nc]
			detTopK(row, nc, p.Categories, idx)
			s.Scores[r] = row[idx[0]]
		}
		n := detNMS(p, s, s.Scores, p.MaxDetections)
		k := int32(0)
		for _, sel := range s.Selected[:n] {
			for c := int32(0); c < p.Categories; c++ {
				// TFLM's offset: the count so far times the categories
				// plus the category (positions between stay untouched).
				o := p.Categories*k + c
				copy(boxes[4*o:4*o+4], s.Boxes[4*sel:4*sel+4])
				ci := s.ClassIdx[sel*nc+c]
				classes[o] = float32(ci)
				outScores[o] = scores[sel*cw+off+ci]
				k++
			}
		}
		num[0] = float32(k)
		return
	}
	merged := int32(0)
	for col := int32(0); col < p.NumClasses; col++ {
		for r := int32(0); r < nb; r++ {
			s.Scores[r] = scores[r*cw+col+off]
		}
		n := detNMS(p, s, s.Scores, p.DetectionsPerClass)
		total := merged
		for _, sel := range s.Selected[:n] {
			s.Merged[total] = sel*cw + col + off
			s.MergedScores[total] = s.Scores[sel]
			total++
		}
		k := min(total, p.MaxDetections)
		detTopK(s.MergedScores[:total], total, k, s.SortIdx)
		// Reorder the first k by the selection, through the tails of the
		// buffers as temporaries (Tmp holds indices, KeepScores scores).
		for j := int32(0); j < k; j++ {
			s.Tmp[j] = s.Merged[s.SortIdx[j]]
			s.KeepScores[j] = s.MergedScores[s.SortIdx[j]]
		}
		copy(s.Merged[:k], s.Tmp[:k])
		copy(s.MergedScores[:k], s.KeepScores[:k])
		merged = k
	}
	for j := int32(0); j < merged; j++ {
		a := s.Merged[j] / cw
		copy(boxes[4*j:4*j+4], s.Boxes[4*a:4*a+4])
		classes[j] = float32(s.Merged[j] - a*cw - off)
		outScores[j] = s.MergedScores[j]
	}
	num[0] = float32(merged)
}

// detTopK writes to idx[:k] the indices of the k largest of v[:n] by
// (value decreasing, index increasing), as TFLM's
// DecreasingPartialArgSort orders them.
func detTopK(v []float32, n, k int32, idx []int32) {
	if k <= 0 {
		return
	}
	m := int32(0)
	for i := int32(0); i < n; i++ {
		if m == k && !(v[i] > v[idx[m-1]]) {
			continue
		}
		j := min(m, k-1)
		if m < k {
			m++
		}
		for j > 0 && v[i] > v[idx[j-1]] {
			idx[j] = idx[j-1]
			j--
		}
		idx[j] = i
	}
}

// detNMS is NonMaxSuppressionSingleClassHelper on scores[:NumBoxes]: the
// candidates at or above the score threshold, stably sorted by decreasing
// score, greedily selected into s.Selected while they overlap no selected
// box by more than the IoU threshold, at most maxDet. It returns the count.
func detNMS(p *detectionParams, s *detectionScratch, scores []float32, maxDet int32) int32 {
	kept := int32(0)
	for i := int32(0); i < p.NumBoxes; i++ {
		if scores[i] >= p.ScoreThreshold {
			s.Keep[kept] = i
			s.KeepScores[kept] = scores[i]
			kept++
		}
	}
	// Stable insertion sort of positions by decreasing score.
	for i := int32(0); i < kept; i++ {
		j := i
		for j > 0 && s.KeepScores[i] > s.KeepScores[s.Order[j-1]] {
			s.Order[j] = s.Order[j-1]
			j--
		}
		s.Order[j] = i
	}
	outSize := min(kept, maxDet)
	n := int32(0)
	active := kept
	for i := int32(0); i < kept; i++ {
		s.Active[i] = 1
	}
	for i := int32(0); i < kept; i++ {
		if active == 0 || n >= outSize {
			break
		}
		if s.Active[i] != 1 {
			continue
		}
		bi := s.Keep[s.Order[i]]
		s.Selected[n] = bi
		n++
		s.Active[i] = 0
		active--
		for j := i + 1; j < kept; j++ {
			if s.Active[j] == 1 && detIoU(s.Boxes, bi, s.Keep[s.Order[j]]) > p.IoU {
				s.Active[j] = 0
				active--
			}
		}
	}
	return n
}

// detIoU is ComputeIntersectionOverUnion in float32, operation by operation.
func detIoU(b []float32, i, j int32) float32 {
	bi, bj := b[4*i:4*i+4], b[4*j:4*j+4]
	ai := float32(bi[2]-bi[0]) * float32(bi[3]-bi[1])
	aj := float32(bj[2]-bj[0]) * float32(bj[3]-bj[1])
	if ai <= 0 || aj <= 0 {
		return 0
	}
	ymin, xmin := detMax(bi[0], bj[0]), detMax(bi[1], bj[1])
	ymax, xmax := detMin(bi[2], bj[2]), detMin(bi[3], bj[3])
	inter := detMax(float32(ymax-ymin), 0) * detMax(float32(xmax-xmin), 0)
	return inter / (float32(ai+aj) - inter)
}

// detMax and detMin are std::max and std::min: the first argument unless
// the second is strictly greater (smaller).
func detMax(a, b float32) float32 {
	if a < b {
		return b
	}
	return a
}

func detMin(a, b float32) float32 {
	if b < a {
		return b
	}
	return a
}
