// Fill an input whose value typing cannot enter: a date, time, month or week
// (Chrome's field reads keys segment by segment, in the reader's locale), a
// colour or a range. The value is set in the control's own format
// (2026-11-27, 13:45, #ff8800, 7), then the events the control fires when a
// person changes it, as Playwright's fill does. Page listeners see them: DOM
// events cross worlds. The caller reads the value back: an input that
// rejected the value (a date that is not one) holds "", and is given back the
// value it had, which this returns.
(function (value) {
    const was = String(this.value);
    this.value = value;
    this.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    this.dispatchEvent(new Event('change', { bubbles: true }));
    return was;
})
