use super::*;
use crate::device::driver;
use crate::device::worker::tests::{job, FAKE_ENV};

fn fake_supervisor(job_timeout_ms: u64) -> Supervisor {
    let program = std::env::current_exe().unwrap();
    let args = [
        "device::worker::tests::fake_worker_process",
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ];
    let command = WorkerCommand {
        program,
        args: args.iter().map(|s| s.to_string()).collect(),
        env: vec![(FAKE_ENV.into(), "1".into())],
    };
    let mut cfg = SupervisorConfig::new(command);
    cfg.job_timeout = Duration::from_millis(job_timeout_ms);
    cfg.start_timeout = Duration::from_secs(30);
    Supervisor::new(cfg)
}

fn assert_ok(r: &JobResult, id: u64) {
    assert_eq!(r.id, id);
    assert_eq!(r.outcome, Outcome::Ok, "job {id}");
    assert_eq!(r.read_back, vec![ReadBack::whole(0, vec![0xab, id as u8])]);
}

/// On Linux the worker maps the supervisor's arena, and payloads of several batches travel
/// through it intact in both directions (the fake answers with buffer 0's bytes).
#[test]
#[cfg(target_os = "linux")]
fn payloads_travel_through_the_arena() {
    let mut s = fake_supervisor(5_000);
    s.device().unwrap();
    assert_eq!(s.shares_arena(), Some(true));
    for round in 0..3u8 {
        let jobs: Vec<Job> = (0..4u8)
            .map(|i| {
                let mut j = job(i as u64, "ok");
                j.buffers[0].init = (0..100_000u32).map(|x| (x as u8) ^ i ^ round).collect();
                j
            })
            .collect();
        for (j, r) in jobs.iter().zip(s.run(&jobs).unwrap()) {
            let mut want = j.buffers[0].init.clone();
            want.push(j.id as u8);
            assert_eq!(r.read_back[0].data, want, "round {round} job {}", j.id);
        }
    }
}

#[test]
fn all_ok_batch_uses_one_worker_and_keeps_order() {
    let mut s = fake_supervisor(5_000);
    assert_eq!(s.device().unwrap().name, "fake");
    let jobs: Vec<Job> = (10..20).rev().map(|i| job(i, "ok")).collect();
    let rs = s.run(&jobs).unwrap();
    assert_eq!(rs.len(), 10);
    for (j, r) in jobs.iter().zip(&rs) {
        assert_ok(r, j.id);
    }
    // A second run reuses the same worker.
    let rs = s.run(&[job(1, "ok")]).unwrap();
    assert_ok(&rs[0], 1);
    assert_eq!(s.spawned, 1);
}

#[test]
fn planted_trap_is_isolated_and_others_get_results() {
    let mut s = fake_supervisor(5_000);
    let jobs: Vec<Job> = (0..8)
        .map(|i| job(i, if i == 5 { "trap" } else { "ok" }))
        .collect();
    let rs = s.run(&jobs).unwrap();
    for (i, r) in rs.iter().enumerate() {
        if i == 5 {
            assert_eq!(
                r.outcome,
                Outcome::Trap {
                    kind: driver::TrapKind::IllegalInstruction,
                    code: 715
                }
            );
        } else {
            assert_ok(r, i as u64);
        }
    }
    // First worker traps at 5; the confirmation run of 5 alone traps again; 6..8 need a third.
    assert_eq!(s.spawned, 3);
}

#[test]
fn traps_first_in_fresh_workers_are_final_later_ones_confirmed() {
    let mut s = fake_supervisor(5_000);
    let kernels = ["trap", "ok", "trap", "trap", "ok", "ok", "trap", "ok"];
    let jobs: Vec<Job> = (0..8).map(|i| job(i, kernels[i as usize])).collect();
    let rs = s.run(&jobs).unwrap();
    for (i, r) in rs.iter().enumerate() {
        match kernels[i] {
            "trap" => assert!(matches!(r.outcome, Outcome::Trap { .. }), "job {i}"),
            _ => assert_ok(r, i as u64),
        }
    }
    // Workers: [0 traps first: final] [1 ok, 2 traps] [2 confirmed alone] [3 first: final]
    // [4, 5 ok, 6 traps] [6 confirmed alone] [7].
    assert_eq!(s.spawned, 7);
}

#[test]
fn a_trap_first_in_a_fresh_worker_needs_no_confirmation() {
    let mut s = fake_supervisor(5_000);
    let jobs: Vec<Job> = (0..4)
        .map(|i| job(i, if i == 0 { "trap" } else { "ok" }))
        .collect();
    let rs = s.run(&jobs).unwrap();
    assert!(matches!(rs[0].outcome, Outcome::Trap { .. }));
    for (i, r) in rs.iter().enumerate().skip(1) {
        assert_ok(r, i as u64);
    }
    assert_eq!(s.spawned, 2);
}

#[test]
fn modules_go_to_every_worker_that_needs_them() {
    let mut s = fake_supervisor(5_000);
    let key = s.add_module(Arc::new(vec![0x7f, b'E', b'L', b'F']));
    let by_key = |id: u64, k: &str| {
        let mut j = job(id, k);
        if let Some(l) = &mut j.launch {
            l.module = key;
        }
        j
    };
    let jobs = vec![by_key(0, "ok"), by_key(1, "trap"), by_key(2, "ok")];
    let rs = s.run(&jobs).unwrap();
    assert_ok(&rs[0], 0);
    assert!(matches!(rs[1].outcome, Outcome::Trap { .. }));
    // Job 2 runs in a fresh worker, which must have been sent the module again.
    assert_ok(&rs[2], 2);
    let rs = s.run(&[by_key(3, "ok")]).unwrap();
    assert_ok(&rs[0], 3);
    let mut unknown = job(4, "ok");
    if let Some(l) = &mut unknown.launch {
        l.module = key ^ 1;
    }
    let rs = s.run(&[unknown]).unwrap();
    assert!(matches!(rs[0].outcome, Outcome::Setup { .. }));
}

#[test]
fn planted_hang_is_isolated_by_the_watchdog() {
    let mut s = fake_supervisor(1_000);
    let jobs: Vec<Job> = (0..5)
        .map(|i| job(i, if i == 2 { "hang" } else { "ok" }))
        .collect();
    let rs = s.run(&jobs).unwrap();
    for (i, r) in rs.iter().enumerate() {
        if i == 2 {
            assert_eq!(r.outcome, Outcome::Timeout { after_ms: 1_000 });
        } else {
            assert_ok(r, i as u64);
        }
    }
}

#[test]
fn trap_caused_by_an_earlier_job_is_not_blamed_on_the_victim() {
    let mut s = fake_supervisor(5_000);
    let jobs = vec![
        job(0, "ok"),
        job(1, "poison_next"),
        job(2, "victim"),
        job(3, "ok"),
    ];
    let rs = s.run(&jobs).unwrap();
    // Job 2 trapped only because of job 1's leftover state; alone it succeeds.
    for (i, r) in rs.iter().enumerate() {
        assert_ok(r, i as u64);
    }
}

#[test]
fn without_confirmation_a_trap_costs_one_restart() {
    let mut s = fake_supervisor(5_000);
    s.cfg.confirm_failures = false;
    let jobs: Vec<Job> = (0..6)
        .map(|i| job(i, if i == 2 { "trap" } else { "ok" }))
        .collect();
    let rs = s.run(&jobs).unwrap();
    assert!(matches!(rs[2].outcome, Outcome::Trap { .. }));
    for i in [0, 1, 3, 4, 5] {
        assert_ok(&rs[i], i as u64);
    }
    assert_eq!(s.spawned, 2);
}

#[test]
fn several_failures_in_one_batch_each_isolated() {
    let mut s = fake_supervisor(1_000);
    let kinds = ["trap", "ok", "die", "ok", "hang", "trap", "ok"];
    let jobs: Vec<Job> = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| job(i as u64, k))
        .collect();
    let rs = s.run(&jobs).unwrap();
    for (i, (k, r)) in kinds.iter().zip(&rs).enumerate() {
        match *k {
            "trap" => assert!(
                matches!(r.outcome, Outcome::Trap { .. }),
                "{i}: {:?}",
                r.outcome
            ),
            "die" => assert!(
                matches!(&r.outcome, Outcome::WorkerCrashed { detail } if detail.contains("exit")),
                "{:?}",
                r.outcome
            ),
            "hang" => assert!(matches!(r.outcome, Outcome::Timeout { .. })),
            _ => assert_ok(r, i as u64),
        }
    }
}

#[test]
fn duplicate_ids_and_bad_worker_are_run_errors() {
    let mut s = fake_supervisor(1_000);
    assert_eq!(
        s.run(&[job(1, "ok"), job(1, "ok")]),
        Err(SupervisorError::DuplicateJobId(1))
    );
    let mut cfg = SupervisorConfig::new(WorkerCommand {
        program: "/nonexistent/ptxc".into(),
        args: vec![],
        env: vec![],
    });
    cfg.start_timeout = Duration::from_secs(1);
    let mut s = Supervisor::new(cfg);
    assert!(matches!(
        s.run(&[job(1, "ok")]),
        Err(SupervisorError::WorkerStart(_))
    ));
    // A worker that exits without a Ready line.
    let cfg = SupervisorConfig::new(WorkerCommand {
        program: "/bin/true".into(),
        args: vec![],
        env: vec![],
    });
    assert!(
        matches!(Supervisor::new(cfg).device(), Err(SupervisorError::WorkerStart(m)) if m.contains("start-up"))
    );
}

#[test]
fn plan_bisects_unattributed_failures_and_confirms_attributed_ones() {
    let died = |c| Failure::Died(c, "x".into());
    // Unattributed: halves of the unfinished jobs.
    let p = plan(&[0, 1, 2, 3, 4, 5], &[0, 1], died(None), true);
    assert_eq!(p.next, vec![vec![2, 3], vec![4, 5]]);
    assert!(p.settled.is_empty());
    // Single unfinished job, unattributed: final crash.
    let p = plan(&[3, 4], &[3], died(None), true);
    assert_eq!(
        p.settled,
        vec![(4, Outcome::WorkerCrashed { detail: "x".into() })]
    );
    // Attributed in a group: confirm alone, the rest regrouped.
    let p = plan(&[0, 1, 2, 3], &[0], died(Some(1)), true);
    assert_eq!(p.next, vec![vec![1], vec![2, 3]]);
    // Without confirmation: final at once, the rest regrouped.
    let p = plan(&[0, 1, 2, 3], &[0], died(Some(1)), false);
    assert_eq!(p.next, vec![vec![2, 3]]);
    assert_eq!(
        p.settled,
        vec![(1, Outcome::WorkerCrashed { detail: "x".into() })]
    );
    // Attributed and alone: final.
    let p = plan(
        &[7],
        &[],
        Failure::Timeout(Some(7), Duration::from_millis(5)),
        true,
    );
    assert_eq!(p.settled, vec![(7, Outcome::Timeout { after_ms: 5 })]);
    let r = Box::new(JobResult::bare(
        9,
        Outcome::Trap {
            kind: driver::TrapKind::MisalignedAddress,
            code: 716,
        },
    ));
    let p = plan(&[7], &[], Failure::Trapped(7, r.clone()), true);
    assert_eq!(p.settled_result, Some((7, r)));
    // Nothing unfinished: nothing to do.
    assert_eq!(
        plan(&[1, 2], &[1, 2], died(None), true).next,
        Vec::<Vec<usize>>::new()
    );
}

/// Jobs run apart each take a worker of their own, several at a time, and a trap, hang or
/// death is the outcome of its own job only; the main worker is not touched.
#[test]
fn jobs_run_apart_each_in_a_worker_of_its_own() {
    let mut s = fake_supervisor(1_000);
    let kinds = ["trap", "ok", "hang", "trap", "die", "ok"];
    let jobs: Vec<Job> = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| job(i as u64, k))
        .collect();
    let rs = s.run_apart(&jobs, 3).unwrap();
    assert_eq!(rs.len(), kinds.len());
    for (i, (k, r)) in kinds.iter().zip(&rs).enumerate() {
        match *k {
            "trap" => assert!(matches!(r.outcome, Outcome::Trap { .. }), "{i}: {r:?}"),
            "hang" => assert!(matches!(r.outcome, Outcome::Timeout { .. }), "{i}: {r:?}"),
            "die" => assert!(
                matches!(r.outcome, Outcome::WorkerCrashed { .. }),
                "{i}: {r:?}"
            ),
            _ => assert_ok(r, i as u64),
        }
    }
    assert_eq!(s.spawned, kinds.len(), "one worker per job");
    assert_eq!((s.apart, s.traps), (kinds.len(), 2));
    assert!(
        s.shares_arena().is_none(),
        "no worker of its own was started"
    );
}
