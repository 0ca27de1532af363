use super::{Instruction, Statement};

/// The warp-collective instructions are exactly those whose syntax carries `.sync.aligned`.
#[test]
fn warp_collective_is_sync_aligned() {
    let all = Instruction::all_variants();
    assert!(all.iter().any(Instruction::is_warp_collective));
    for x in &all {
        let text = x.to_string();
        assert_eq!(
            x.is_warp_collective(),
            text.contains(".sync.aligned"),
            "{text}"
        );
    }
}

/// The asynchronous copies are the `cp.*` instructions with a source and a destination memory
/// operand; prefetches, group operations and arrives are not copies.
#[test]
fn async_copies_have_a_source_and_a_destination() {
    for x in Instruction::all_variants() {
        let text = x.to_string();
        let two_operands = text.matches('[').count() >= 2;
        assert_eq!(
            x.is_async_copy(),
            text.starts_with("cp.") && two_operands,
            "{text}"
        );
    }
}

#[test]
fn address_names_are_the_bases_of_memory_operands() {
    let names = |text: &str| Statement::parse(text).unwrap().instr.address_names();
    assert_eq!(
        names("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [d+16], [s], 64, [bar]"),
        ["d", "s", "bar"]
    );
    // A tensor map is not a memory operand; a Tensor Memory address is a register.
    assert_eq!(
        names("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [d], [map, {x}], [bar]"),
        ["d", "bar"]
    );
    assert!(names("tcgen05.wait::ld.sync.aligned").is_empty());
    assert_eq!(names("mbarrier.inval.shared.b64 [bar]"), ["bar"]);
}

/// The memo hands a parse out shared: a second parse of a text under a context that answers
/// alike is the same allocation, and `parse_with` gives a copy equal to it.
#[test]
fn a_repeated_parse_is_shared() {
    let text = "cp.async.bulk.commit_group;";
    let ctx = super::operand::ParseCtx::default();
    let a = Statement::parse_shared(text, &ctx);
    let b = Statement::parse_shared(text, &ctx);
    assert!(std::sync::Arc::ptr_eq(&a, &b));
    assert_eq!(Statement::parse_with(text, &ctx), *a);
    let other = Statement::parse_shared("cp.async.commit_group;", &ctx);
    assert!(!std::sync::Arc::ptr_eq(&a, &other));
}
