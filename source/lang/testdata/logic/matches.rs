fn chains(x: i32) -> i32 {
    if x > 0 {
        return 1;
    } else if x < 0 {
        step();
    } else {
        other();
    }
    x + 1
}

fn loops(xs: &[i32]) -> Result<i32, Error> {
    let first = parse(xs)?;
    for x in xs {
        if *x == 3 {
            continue;
        }
        if *x == 4 {
            break;
        }
    }
    'outer: loop {
        while let Some(v) = next() {
            if v > 9 {
                break 'outer;
            }
        }
    }
    Ok(first)
}

fn arms(x: i32) {
    match x {
        1 => one(),
        2 | 3 => {
            two();
        }
        _ => panic!("no"),
    }
}

impl Shape {
    fn tail(&self) -> i32 {
        if self.big() { 2 } else { 1 }
    }
}
