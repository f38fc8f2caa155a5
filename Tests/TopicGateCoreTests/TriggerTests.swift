import Testing
import TopicGateCore

/// Triggers' pure parts: cron schedules, conditions, when a state fires, predicates and bodies.
@Suite("Thing-IF triggers: schedules, conditions, predicates")
struct TriggerTests {
    /// 2026-11-27 16:55:30 UTC, a Friday.
    static let friday = UnixMillis(1_795_798_530_000)

    static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int) -> UnixMillis {
        // Days from civil (Howard Hinnant), to check the schedule against an independent sum.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = Int64(era * 146_097 + doe - 719_468)
        return UnixMillis(days * 86_400_000 + Int64(hour) * 3_600_000 + Int64(minute) * 60_000)
    }

    @Test("Cron schedules name the next minute due, in UTC, as Kii's SDKs write them")
    func cron() throws {
        #expect(Self.utc(2026, 11, 27, 16, 55) == UnixMillis(1_795_798_500_000))
        let cases: [(String, UnixMillis)] = [
            ("* * * * *", Self.utc(2026, 11, 27, 16, 56)),
            ("5 * * * *", Self.utc(2026, 11, 27, 17, 5)),
            ("0 12 1 * *", Self.utc(2026, 12, 1, 12, 0)),
            ("* 1 * * *", Self.utc(2026, 11, 28, 1, 0)),
            ("*/15 9-17 * * 1-5", Self.utc(2026, 11, 27, 17, 0)),
            ("30 8 * * 0", Self.utc(2026, 11, 29, 8, 30)),
            ("30 8 * * 7", Self.utc(2026, 11, 29, 8, 30)),
            ("0 0 29 2 *", Self.utc(2028, 2, 29, 0, 0)),
            ("0 0 1 1 *", Self.utc(2027, 1, 1, 0, 0)),
            ("0,30 16,17 * * *", Self.utc(2026, 11, 27, 17, 0)),
            // Day of month or day of week, when both are named.
            ("0 0 15 * 6", Self.utc(2026, 11, 28, 0, 0)),
        ]
        for (text, expected) in cases {
            #expect(try CronSchedule(text).next(after: Self.friday) == expected, "\(text)")
        }
        // Strictly after: a due minute is not due again.
        #expect(
            try CronSchedule("5 * * * *").next(after: Self.utc(2026, 11, 27, 17, 5)) == Self.utc(2026, 11, 27, 18, 5))
        #expect(try CronSchedule("0 0 31 2 *").next(after: Self.friday) == nil)
        for wrong in [
            "wrong format", "", "* * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *",
            "* * * * 8", "*/0 * * * *", "5-1 * * * *", "a * * * *", "* * * * * *",
        ] {
            #expect(throws: KiiError.self, "\(wrong)") { try CronSchedule(wrong) }
            do {
                _ = try CronSchedule(wrong)
            } catch {
                #expect(error.code == .wrongPredicate)
                #expect(error.message == "Value for 'schedule' field is incorrect")
            }
        }
    }

    @Test("Conditions read each alias's latest state (or the plain state) with Kii's comparisons")
    func conditions() throws {
        let hot = try TriggerClause(json: [
            "type": "and",
            "clauses": [
                ["type": "eq", "alias": "AirConditionerAlias", "field": "power", "value": true],
                [
                    "type": "range", "alias": "AirConditionerAlias", "field": "currentTemperature", "lowerLimit": 30,
                    "lowerIncluded": false,
                ],
                ["type": "not", "clause": ["type": "eq", "alias": "HumidityAlias", "field": "mode", "value": "dry"]],
            ],
        ])
        #expect(hot.aliases == ["AirConditionerAlias", "HumidityAlias"])
        let snapshot = ThingStateSnapshot(aliases: [
            "AirConditionerAlias": ["power": true, "currentTemperature": .double(30.5)],
            "HumidityAlias": ["mode": "wet"],
        ])
        #expect(hot.matches(snapshot))
        #expect(
            !hot.matches(
                snapshot.updated(with: [ThingStateRecord(state: ["mode": "dry"], recordedAt: 1, alias: "HumidityAlias")]
                )))
        #expect(
            !hot.matches(
                snapshot.updated(with: [
                    ThingStateRecord(
                        state: ["power": true, "currentTemperature": 30], recordedAt: 1, alias: "AirConditionerAlias")
                ])))
        // A field that is missing, or of another kind, does not match a comparison.
        #expect(!hot.matches(ThingStateSnapshot()))
        let plain = try TriggerClause(json: [
            "type": "or",
            "clauses": [
                ["type": "eq", "field": "power", "value": 1], ["type": "range", "field": "t", "upperLimit": 0],
            ],
        ])
        #expect(plain.aliases == [nil])
        #expect(plain.matches(ThingStateSnapshot(plain: ["power": .double(1)])))
        #expect(plain.matches(ThingStateSnapshot(plain: ["t": -3])))
        #expect(!plain.matches(ThingStateSnapshot(plain: ["power": "1", "t": "x"])))
        for wrong: JSONValue in [
            ["type": "gt", "field": "x"], ["type": "eq", "value": 1], ["type": "range", "field": "x"],
            ["type": "and", "clauses": []], ["type": "eq", "alias": "a/b", "field": "x", "value": 1], "eq",
        ] {
            #expect(throws: KiiError.self, "\(wrong)") { try TriggerClause(json: wrong) }
        }
    }

    @Test("When a state fires: every true state, a false-to-true change, any change")
    func firing() {
        let table: [(TriggersWhen, Bool, Bool, Bool)] = [
            (.conditionTrue, false, true, true), (.conditionTrue, true, true, true),
            (.conditionTrue, true, false, false), (.conditionFalseToTrue, false, true, true),
            (.conditionFalseToTrue, true, true, false), (.conditionFalseToTrue, true, false, false),
            (.conditionChanged, false, true, true), (.conditionChanged, true, false, true),
            (.conditionChanged, true, true, false), (.conditionChanged, false, false, false),
        ]
        for (when, previous, now, fires) in table {
            #expect(when.fires(previous: previous, now: now) == fires, "\(when) \(previous) → \(now)")
        }
    }

    @Test("Predicates: STATES, SCHEDULE, SCHEDULE_ONCE, answered as sent; anything else WRONG_PREDICATE")
    func predicates() throws {
        let states: JSONValue = [
            "eventSource": "STATES", "triggersWhen": "CONDITION_FALSE_TO_TRUE",
            "condition": ["type": "eq", "alias": "AirConditionerAlias", "field": "power", "value": true],
        ]
        let predicate = try TriggerPredicate(json: states)
        #expect(predicate.json == states)
        #expect(!predicate.isTimed)
        #expect(predicate.nextDue(after: Self.friday) == nil)
        let schedule = try TriggerPredicate(json: ["eventSource": "SCHEDULE", "schedule": "5 * * * *"])
        #expect(schedule.isTimed)
        #expect(schedule.nextDue(after: Self.friday) == Self.utc(2026, 11, 27, 17, 5))
        let once = try TriggerPredicate(json: ["eventSource": "SCHEDULE_ONCE", "scheduleAt": 1_795_800_000_000])
        #expect(once.nextDue(after: Self.friday) == UnixMillis(1_795_800_000_000))
        for wrong: JSONValue in [
            ["eventSource": "STATES", "condition": ["type": "eq", "field": "x", "value": 1]],
            [
                "eventSource": "STATES", "triggersWhen": "SOMETIMES",
                "condition": ["type": "eq", "field": "x", "value": 1],
            ],
            ["eventSource": "SCHEDULE", "schedule": "wrong format"], ["eventSource": "SCHEDULE"],
            ["eventSource": "SCHEDULE", "schedule": "0 0 31 2 *"],
            ["eventSource": "SCHEDULE_ONCE", "scheduleAt": "soon"], ["eventSource": "WHENEVER"], [:],
        ] {
            do {
                _ = try TriggerPredicate(json: wrong)
                Issue.record("accepted \(wrong)")
            } catch {
                #expect(error.code == .wrongPredicate, "\(wrong)")
            }
        }
    }

    @Test("Trigger bodies: COMMAND only, the command's target defaults to the thing, a fired command names its trigger")
    func bodies() throws {
        let body: [String: JSONValue] = [
            "triggersWhat": "COMMAND",
            "predicate": ["eventSource": "SCHEDULE_ONCE", "scheduleAt": 1_795_800_000_000],
            "command": [
                "issuer": "user:u1", "actions": [["AirConditionerAlias": [["turnPower": true]]]],
                "firedByTriggerID": "forged",
            ],
            "title": "Morning", "metadata": ["k": "v"],
        ]
        let request = try TriggerRequest(body: body, creating: true)
        #expect(request.title == .some("Morning"))
        let command = try TriggerCommand(json: try #require(request.command), watched: ThingID("th.a"))
        #expect(command.target == ThingID("th.a"))
        #expect(command.request.extras["firedByTriggerID"] == nil)
        let other = try TriggerCommand(
            json: ["target": "THING:th.b", "issuer": "user:u1", "actions": [["turnPower": true]]],
            watched: ThingID("th.a"))
        #expect(other.target == ThingID("th.b"))
        #expect(other.json.objectValue?["target"] == "thing:th.b")
        let trigger = Trigger(
            id: "t1", appID: "app", thing: "th.a", predicate: try #require(request.predicate), command: command,
            createdAt: 1, modifiedAt: 1)
        let fired = trigger.firedCommand(id: "c1", at: 5)
        #expect(fired.json.objectValue?["firedByTriggerID"] == "t1")
        #expect(fired.issuer == .user(UserID("u1")))
        #expect(trigger.json.objectValue?["disabled"] == false)
        #expect(trigger.json.objectValue?["command"]?.objectValue?["commandID"] == nil)

        for (wrong, code) in [
            (
                ["triggersWhat": "SERVER_CODE", "predicate": body["predicate"]!, "serverCode": ["endpoint": "f"]],
                "WRONG_TRIGGER"
            ),
            (["predicate": body["predicate"]!, "serverCode": ["endpoint": "f"]], "WRONG_TRIGGER"),
            (["predicate": body["predicate"]!], "WRONG_TRIGGER"),
            (["command": body["command"]!], "WRONG_TRIGGER"),
            (
                ["predicate": ["eventSource": "SCHEDULE", "schedule": "x"], "command": body["command"]!],
                "WRONG_PREDICATE"
            ),
            (
                [
                    "predicate": body["predicate"]!, "command": body["command"]!,
                    "title": .string(String(repeating: "t", count: 51)),
                ], "INVALID_INPUT_DATA"
            ),
        ] as [([String: JSONValue], String)] {
            do {
                _ = try TriggerRequest(body: wrong, creating: true)
                Issue.record("accepted \(wrong)")
            } catch {
                #expect(error.code.rawValue == code, "\(wrong)")
            }
        }
        #expect(throws: KiiError.self) {
            try TriggerCommand(
                json: ["target": "user:u1", "issuer": "user:u1", "actions": [["x": 1]]], watched: "th.a")
        }
    }
}
