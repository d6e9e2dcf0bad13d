//! The pure work of a batch of mail — reading and classifying the mails, rendering the
//! courier's replies and deliveries, formatting outgoing mail — spread over the
//! machine's cores while the batch's transaction waits for it. Owns no state and does
//! no I/O: it cuts a slice into runs, maps each run on a thread of its own (the first
//! on the caller's, the others on helper threads that live as long as the process),
//! and hands the results back in order, so a batch writes exactly what one thread
//! would have written.

/// Fewer items than this are mapped on the caller's thread alone: handing a run to
/// another thread costs more than the work of a few mails.
const MIN_RUN: usize = 32;

/// At most this many runs at once (the development machine has two cores).
const MAX_THREADS: usize = 4;

/// `f` over `items` cut into consecutive runs, one thread a run (the first on the
/// caller's thread, the others on the helpers of [`POOL`]); the runs' results in order.
/// A panic in any run is raised again here with its own payload, as if `f` had run on
/// the caller's thread (the caller's own run first, then the others in order), once
/// every run has ended.
///
/// The helpers live as long as the process: a thread started for every batch began
/// with an empty allocator heap, so each batch's texts were allocated in fresh pages
/// and freed across threads (some 15 % of a batch's processor time went to the
/// allocator). Called on a helper (a run that maps again), the runs go one after
/// another on it, so a helper never waits for another.
pub fn map_runs<'a, T: Sync, R: Send>(items: &'a [T], f: impl Fn(&'a [T]) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_THREADS)
        .min(items.len() / MIN_RUN)
        .max(1);
    if threads == 1 || ON_HELPER.with(std::cell::Cell::get) {
        return vec![f(items)];
    }
    let run = items.len().div_ceil(threads);
    let mut runs = items.chunks(run);
    let first = runs.next().unwrap_or_default();
    let others: Vec<&'a [T]> = runs.collect();
    let slots: Vec<Slot<R>> = others.iter().map(|_| Slot::default()).collect();
    // Shared, not borrowed: a helper still holds it for a moment after its count.
    let latch = std::sync::Arc::new(Latch::new(others.len()));
    let f = &f;
    for (r, slot) in others.iter().copied().zip(&slots) {
        let latch = latch.clone();
        let job = move || {
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(r)));
            *slot
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(out);
            latch.count_down();
        };
        let job: Box<dyn FnOnce() + Send + '_> = Box::new(job);
        // SAFETY: the job borrows `f`, `r` and `slot`, which live in this call frame;
        // this function does not return (nor unwind: every run's panic is caught, and
        // a job the pool cannot take runs here) before `latch.wait()` has seen every
        // job end, so no job outlives what it borrows.
        let job: Job = unsafe { std::mem::transmute(job) };
        if let Err(job) = POOL.send(job) {
            job();
        }
    }
    let mine = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(first)));
    latch.wait();
    let mut out = Vec::with_capacity(threads);
    match mine {
        Ok(r) => out.push(r),
        Err(payload) => std::panic::resume_unwind(payload),
    }
    for slot in slots {
        let done = slot
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match done {
            Some(Ok(r)) => out.push(r),
            Some(Err(payload)) => std::panic::resume_unwind(payload),
            None => unreachable!("a run ended without its result"),
        }
    }
    out
}

/// A run's result, written by the helper that ran it.
type Slot<R> = std::sync::Mutex<Option<std::thread::Result<R>>>;

/// A run handed to a helper.
type Job = Box<dyn FnOnce() + Send + 'static>;

thread_local! {
    /// Set on the pool's helpers.
    static ON_HELPER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Counts the runs handed out that have not ended yet.
struct Latch {
    left: std::sync::Mutex<usize>,
    ended: std::sync::Condvar,
}

impl Latch {
    fn new(n: usize) -> Latch {
        Latch {
            left: std::sync::Mutex::new(n),
            ended: std::sync::Condvar::new(),
        }
    }

    fn count_down(&self) {
        let mut left = self
            .left
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *left -= 1;
        if *left == 0 {
            self.ended.notify_all();
        }
    }

    fn wait(&self) {
        let mut left = self
            .left
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        while *left > 0 {
            left = self
                .ended
                .wait(left)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }
}

/// The helper threads, started at the first use: `MAX_THREADS - 1` of them, taking
/// runs in the order they were handed out.
static POOL: Pool = Pool {
    queue: std::sync::OnceLock::new(),
};

struct Pool {
    queue: std::sync::OnceLock<std::sync::Mutex<std::sync::mpsc::Sender<Job>>>,
}

impl Pool {
    /// Hand `job` to a helper; back when there is none (it could not be started).
    fn send(&self, job: Job) -> Result<(), Job> {
        let queue = self.queue.get_or_init(|| {
            let (tx, rx) = std::sync::mpsc::channel::<Job>();
            let rx = std::sync::Arc::new(std::sync::Mutex::new(rx));
            for i in 0..MAX_THREADS - 1 {
                let rx = rx.clone();
                let _ = std::thread::Builder::new()
                    .name(format!("pbemd-par-{i}"))
                    .spawn(move || {
                        ON_HELPER.with(|h| h.set(true));
                        loop {
                            let next = rx
                                .lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner)
                                .recv();
                            match next {
                                // A job catches its own panic.
                                Ok(job) => job(),
                                Err(_) => return,
                            }
                        }
                    });
            }
            std::sync::Mutex::new(tx)
        });
        queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .send(job)
            .map_err(|e| e.0)
    }
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

    /// Several callers at once (the intake and the worker), and a run that maps again
    /// (on a helper it maps alone): every caller gets its own results, in order.
    #[test]
    fn callers_at_once_and_runs_that_map_again_get_their_own_results() {
        let items: Vec<usize> = (0..1000).collect();
        std::thread::scope(|s| {
            let callers: Vec<_> = (0..6)
                .map(|k| {
                    let items = &items;
                    s.spawn(move || {
                        for _ in 0..20 {
                            let runs = map_runs(items, |r| {
                                map_runs(r, |inner| inner.iter().map(|i| i * k).collect::<Vec<_>>())
                                    .concat()
                            });
                            let want: Vec<usize> = items.iter().map(|i| i * k).collect();
                            assert_eq!(runs.concat(), want, "caller {k}");
                        }
                    })
                })
                .collect();
            for c in callers {
                c.join().unwrap();
            }
        });
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
