fn main() {
    use yahtzee::*;
    for set in RuleSet::ALL {
        for order in [Order::Any, Order::UpperFirst] {
            let rules = Rules::with_order(set, order);
            let (t, s) = StrategyTable::solve(&rules, Default::default(), &|_, _| {});
            println!("{} {:.10} {:.3}s {}", rules, t.expected_score(), s, t.states());
        }
    }
}
