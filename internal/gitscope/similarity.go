package gitscope

import "bytes"

// RenameThreshold is git's default rename similarity (`-M`, diff.renames): 50%.
const RenameThreshold = 50

// Similarity is git's rename similarity of the deleted file src and the added file dst in
// percent, rounded down: 100 for equal non-empty contents, else git's diffcore-delta span-hash
// estimate with git's size pre-check. It runs no git process and reads no gitattributes.
func Similarity(src, dst []byte) int {
	const maxScore = 60000 // git's MAX_SCORE
	maxSize, baseSize := len(src), len(dst)
	if baseSize > maxSize {
		maxSize, baseSize = baseSize, maxSize
	}
	// git: "we would not consider edits that change the file size so drastically".
	if maxSize == 0 || uint64(maxSize)*(maxScore-maxScore*RenameThreshold/100) < uint64(maxSize-baseSize)*maxScore {
		return 0
	}
	if bytes.Equal(src, dst) {
		return 100 // git's exact rename detection, which runs before the estimate
	}
	s, d := spanHashes(src), spanHashes(dst)
	var copied uint64
	for h, dc := range d {
		copied += min(s[h], dc)
	}
	score := copied * maxScore / uint64(maxSize)
	return int(score * 100 / maxScore)
}

// spanHashes is git's hash_chars: the byte count of each span hash.
func spanHashes(buf []byte) map[uint32]uint64 {
	const hashBase = 107927 // git's HASHBASE
	text := bytes.IndexByte(buf[:min(len(buf), 8000)], 0) < 0
	out := map[uint32]uint64{}
	var accum1, accum2 uint32
	n := uint64(0)
	for i := 0; i < len(buf); i++ {
		c := buf[i]
		if text && c == '\r' && i+1 < len(buf) && buf[i+1] == '\n' {
			continue
		}
		old1 := accum1
		accum1 = (accum1 << 7) ^ (accum2 >> 25)
		accum2 = (accum2 << 7) ^ (old1 >> 25)
		accum1 += uint32(c)
		n++
		if n < 64 && c != '\n' {
			continue
		}
		out[(accum1+accum2*0x61)%hashBase] += n
		n, accum1, accum2 = 0, 0, 0
	}
	// git does not hash the bytes after the last line feed when they are fewer than 64.
	return out
}
