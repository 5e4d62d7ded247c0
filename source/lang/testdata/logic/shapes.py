def branches(x):
    if x > 0:
        return 1
    elif x < 0:
        raise ValueError(x)
    else:
        x = 0
    return x


def loops(xs):
    for x in xs:
        if x:
            break
        continue
    else:
        found = None
    while xs:
        xs.pop()
    return found


def guarded(path):
    try:
        f = open(path)
    except OSError as e:
        raise RuntimeError(path) from e
    else:
        data = f.read()
    finally:
        log(path)
    return data


async def fetch(session, url):
    async with session.get(url) as r:
        body = await r.text()
    match r.status:
        case 200:
            return body
        case _:
            return None
