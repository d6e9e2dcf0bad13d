//! The pure work of a batch of mail — reading and classifying the mails, rendering the
//! courier's replies and deliveries, formatting outgoing mail — spread over the
//! machine's cores while the batch's transaction waits for it. Owns no state and does
//! no I/O: it cuts a slice into runs, maps each run on a thread of its own (the first
//! on the caller's), and hands the results back in order, so a batch writes exactly
//! what one thread would have written.

/// Fewer items than this are mapped on the caller's thread alone: starting a thread
/// costs more than the work of a few mails.
const MIN_RUN: usize = 32;

/// At most this many runs at once (the development machine has two cores).
const MAX_THREADS: usize = 4;

/// `f` over `items` cut into consecutive runs, one thread a run (the first on the
/// caller's thread); the runs' results in order. A panic in any run is raised again
/// here with its own payload, as if `f` had run on the caller's thread.
pub fn map_runs<'a, T: Sync, R: Send>(items: &'a [T], f: impl Fn(&'a [T]) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_THREADS)
        .min(items.len() / MIN_RUN)
        .max(1);
    if threads == 1 {
        return vec![f(items)];
    }
    let run = items.len().div_ceil(threads);
    let mut runs = items.chunks(run);
    let first = runs.next().unwrap_or_default();
    let f = &f;
    std::thread::scope(|s| {
        let others: Vec<_> = runs.map(|r| s.spawn(move || f(r))).collect();
        let mut out = Vec::with_capacity(threads);
        out.push(f(first));
        for h in others {
            match h.join() {
                Ok(r) => out.push(r),
                Err(payload) => std::panic::resume_unwind(payload),
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::map_runs;

    #[test]
    fn runs_come_back_in_order_and_cover_every_item_once() {
        for n in [0, 1, 31, 32, 64, 65, 500, 1001] {
            let items: Vec<usize> = (0..n).collect();
            let runs = map_runs(&items, |r| r.to_vec());
            assert_eq!(runs.concat(), items, "{n} items");
            assert!(runs.len() <= 4);
        }
    }

    #[test]
    fn a_panic_in_another_run_keeps_its_message() {
        let items: Vec<usize> = (0..200).collect();
        let caught = std::panic::catch_unwind(|| {
            map_runs(&items, |r| {
                if r.contains(&199) {
                    panic!("the last run broke");
                }
                r.len()
            })
        });
        let payload = caught.expect_err("the panic comes back");
        assert_eq!(
            payload.downcast_ref::<&str>(),
            Some(&"the last run broke"),
            "its own message"
        );
    }
}
