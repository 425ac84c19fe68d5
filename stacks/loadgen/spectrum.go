package main

import "github.com/HdrHistogram/hdrhistogram-go"

// spectrumTicks is HdrHistogram's default: 5 reporting steps per halving of the
// distance to 100%, so the tail to 99.999% gets its own points.
const spectrumTicks = 5

// spectrumPoint is one row of HdrHistogram's percentile output.
type spectrumPoint struct {
	Percentile float64 `json:"percentile"` // 0..100
	ValueUS    int64   `json:"value_us"`   // the bucket's highest equivalent value
	Count      int64   `json:"count"`      // samples at or below value_us (cumulative)
}

// latencySpectrum is the whole latency distribution: the percentile rows a
// plot needs and the histogram itself, lossless, for any HdrHistogram tool.
type latencySpectrum struct {
	TotalCount int64           `json:"total_count"`
	MaxUS      int64           `json:"max_us"`
	Points     []spectrumPoint `json:"points"`
	HDR        string          `json:"hdr"` // base64 V2-compressed histogram (HdrHistogram's log encoding)
}

func newSpectrum(h histogram) latencySpectrum {
	s := latencySpectrum{TotalCount: h.TotalCount(), MaxUS: h.Max(), Points: []spectrumPoint{}}
	// An empty histogram would still yield one 100% row at value 0: no such sample exists.
	if s.TotalCount > 0 {
		for _, b := range h.CumulativeDistributionWithTicks(spectrumTicks) {
			s.Points = append(s.Points, spectrumPoint{Percentile: b.Quantile, ValueUS: b.ValueAt, Count: b.Count})
		}
	}
	if enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
		s.HDR = string(enc)
	}
	return s
}
