'use strict';
// Drives the addon's capture plan (`native.CapturePump`) on this thread:
// poll for requests, send each, hand every reply back as it arrives and
// poll again, until the plan gives its outcome. Each request carries how
// long it may take; one unanswered by then is delivered as timed out.
const native = require('./native.cjs');
const { callNative, fromNative } = require('./raise.cjs');

/** setTimeout's largest delay; longer ones fire at once. */
const MAX_DELAY = 2 ** 31 - 1;

function messageOf(err) {
    return err && err.message !== undefined ? String(err.message) : String(err);
}

/**
 * The outcome of a capture over `send(request) => Promise<string>` (a
 * request is `{ method, params, session, project }`). Resolves with the
 * addon's outcome, errors included; rejects only if the addon itself throws.
 */
function pumpCapture(send, opts, numbering = null, world = null, incremental = null) {
    let pump;
    try {
        // A page session's state stays in Rust (`NativeSession`); numbering arrays are for other callers.
        const session = numbering instanceof native.NativeSession ? numbering : null;
        pump = callNative(() => new native.CapturePump(opts, session ? null : numbering, world, incremental, session));
    } catch (err) {
        return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
        let done = false;
        // Requests still in flight when the plan ends (an error ended it early)
        // need no deadline any more: their timers would hold a finished
        // script's process open until the capture's timeout.
        const timers = new Set();
        const finish = () => {
            done = true;
            for (const t of timers) clearTimeout(t);
            timers.clear();
        };
        const step = () => {
            if (done) return;
            let polled;
            try {
                polled = pump.poll();
            } catch (err) {
                finish();
                reject(fromNative(err));
                return;
            }
            if (polled.outcome) {
                finish();
                resolve(polled.outcome);
                return;
            }
            for (const request of polled.requests) dispatch(request);
        };
        const dispatch = request => {
            let answered = false;
            const answer = (text, error) => {
                if (answered) return;
                answered = true;
                clearTimeout(timer);
                timers.delete(timer);
                if (done) return;
                pump.deliver(request.id, text, error);
                step();
            };
            const timer = setTimeout(() => answer(null, null), Math.min(Math.max(1, request.timeoutMs), MAX_DELAY));
            timers.add(timer);
            let sent;
            try {
                sent = send(request);
            } catch (err) {
                answer(null, messageOf(err));
                return;
            }
            Promise.resolve(sent).then(
                text => answer(typeof text === 'string' ? text : JSON.stringify(text === undefined ? {} : text), null),
                err => answer(null, messageOf(err)),
            );
        };
        step();
    });
}

module.exports = { pumpCapture };
