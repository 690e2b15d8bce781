import Testing
import TestSupport
@testable import KafkaIO

@Suite struct CompletionPromiseTests {
    @Test func aResultThatArrivesBeforeTheAwaitIsKept() async throws {
        let promise = CompletionPromise<Int>()
        promise.fulfill(.success(7))
        #expect(try await promise.value() == 7)
        #expect(try await promise.value() == 7)
    }

    @Test func aResultThatArrivesWhileAwaitingWakesEveryWaiter() async throws {
        let promise = CompletionPromise<Int>()
        async let first = promise.value()
        async let second = promise.value()
        promise.fulfill(.success(3))
        let values = try await [first, second]
        #expect(values == [3, 3])
    }

    @Test func aFailureIsThrownAsTheKafkaError() async {
        let promise = CompletionPromise<Int>()
        promise.fulfill(.failure(KafkaError(.closed, "gone")))
        await #expect(throws: KafkaError(.closed, "gone")) { try await promise.value() }
    }

    @Test func theFirstResultWins() async throws {
        let promise = CompletionPromise<Int>()
        promise.fulfill(.success(1))
        promise.fulfill(.success(2))
        #expect(try await promise.value() == 1)
    }

    @Test func cancellingAWaiterThrowsCancellationAndLeavesTheResultForOthers() async throws {
        let promise = CompletionPromise<Int>()
        let waiting = Task { try await promise.value() }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waitFor("waiting to end") { await waiting.result }?.get() }
        promise.fulfill(.success(5))
        #expect(try await promise.value() == 5)
    }

    @Test func aTaskCancelledBeforeAwaitingStillGetsAResultThatAlreadyArrived() async throws {
        let promise = CompletionPromise<Int>()
        promise.fulfill(.success(9))
        let value = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await promise.value()
        }.result
        #expect(try value.get() == 9)
    }
}
