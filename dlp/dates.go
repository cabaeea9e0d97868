package dlp

// Calendar dates for the date-of-birth scanner. Accepted layouts:
// 1985-03-12, 1985/03/12, 12/03/1985, 03-12-1985, 12.03.1985 (day-month
// or month-day, whichever is a real date), 12 March 1985, 12-Mar-1985,
// March 12, 1985 and Mar 12 1985. Years 1900 to 2099.

var monthNames = [...]string{"january", "february", "march", "april", "may", "june", "july",
	"august", "september", "october", "november", "december"}

// monthAt reads an English month name or its three-letter abbreviation
// ("Sept" too) at j; it returns the month (1-12) and the end.
func monthAt(s string, j int) (int, int) {
	for m, name := range monthNames {
		if hasFold(s, j, name) && wordEnd(s, j+len(name)) {
			return m + 1, j + len(name)
		}
	}
	for m, name := range monthNames {
		if hasFold(s, j, name[:3]) {
			e := j + 3
			if m == 8 && hasFold(s, e, "t") {
				e++
			}
			if e < len(s) && s[e] == '.' {
				e++
			}
			if wordEnd(s, e) {
				return m + 1, e
			}
		}
	}
	return 0, j
}

// number reads 1..width digits at j.
func number(s string, j, width int) (v, end int) {
	end = run(s, j, width, isDigit)
	for k := j; k < end; k++ {
		v = v*10 + int(s[k]-'0')
	}
	return v, end
}

func validDate(y, m, d int) bool {
	if y < 1900 || y > 2099 || m < 1 || m > 12 || d < 1 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
}

// parseDate reads a date at j and returns its end.
func parseDate(s string, j int) (int, bool) {
	for j < len(s) && (s[j] == '"' || s[j] == '\'' || s[j] == ' ') {
		j++
	}
	if j >= len(s) {
		return 0, false
	}
	var e int
	var ok bool
	if isDigit(s[j]) {
		e, ok = numericDate(s, j)
	} else {
		e, ok = monthFirstDate(s, j)
	}
	if !ok || (e < len(s) && isAlnum(s[e])) {
		return 0, false
	}
	return e, true
}

// numericDate reads Y-M-D, D-M-Y or M-D-Y with one separator kind, or
// "D Month Y".
func numericDate(s string, j int) (int, bool) {
	a, e1 := number(s, j, 4)
	if e1 >= len(s) {
		return 0, false
	}
	sep := s[e1]
	if (sep == ' ' || sep == '-') && e1-j <= 2 {
		if m, e := monthAt(s, e1+1); m > 0 && e < len(s) && (s[e] == ' ' || s[e] == sep) {
			y, ey := number(s, e+1, 4)
			return ey, ey-e-1 == 4 && validDate(y, m, a)
		}
	}
	if sep != '-' && sep != '/' && sep != '.' {
		return 0, false
	}
	b, e2 := number(s, e1+1, 2)
	if e2 == e1+1 || e2 >= len(s) || s[e2] != sep {
		return 0, false
	}
	c, e3 := number(s, e2+1, 4)
	switch {
	case e1-j == 4 && e3-e2-1 <= 2:
		return e3, e3 > e2+1 && validDate(a, b, c)
	case e1-j <= 2 && e3-e2-1 == 4:
		return e3, validDate(c, b, a) || validDate(c, a, b)
	}
	return 0, false
}

// monthFirstDate reads "March 12, 1985" or "Mar 12 1985".
func monthFirstDate(s string, j int) (int, bool) {
	m, e := monthAt(s, j)
	if m == 0 || e >= len(s) || s[e] != ' ' {
		return 0, false
	}
	d, ed := number(s, e+1, 2)
	if ed == e+1 {
		return 0, false
	}
	if has(s, ed, "st") || has(s, ed, "nd") || has(s, ed, "rd") || has(s, ed, "th") {
		ed += 2
	}
	if ed < len(s) && s[ed] == ',' {
		ed++
	}
	if ed >= len(s) || s[ed] != ' ' {
		return 0, false
	}
	y, ey := number(s, ed+1, 4)
	return ey, ey-ed-1 == 4 && validDate(y, m, d)
}
